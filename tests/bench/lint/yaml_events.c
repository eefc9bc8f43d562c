/*
 * yaml_events.c - the benchmark's baseline: a bare libyaml event parse of
 * a file (every event pulled and freed, nothing built). Built by run.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

int main(int argc, char **argv)
{
    FILE *f;
    yaml_parser_t p;
    yaml_event_t ev;
    long events = 0;
    int done = 0;

    if (argc != 2)
        return 2;
    f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    while (!done) {
        if (!yaml_parser_parse(&p, &ev)) {
            fprintf(stderr, "parse error: %s\n", p.problem);
            return 1;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        events++;
    }
    yaml_parser_delete(&p);
    fclose(f);
    printf("%ld events\n", events);
    return 0;
}
