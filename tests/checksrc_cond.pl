#!/usr/bin/perl
# checksrc_cond.pl FILE... - prints file:line for every if/while condition
# that assigns (curl's rule: `p = malloc(n); if (!p)`, never `if (!(p = ...))`)
# and every if/while whose body shares the condition's line (one statement
# per line).
# The condition is the balanced (...) after the keyword, across lines; char
# and string literals are blanked first.
use strict;
use warnings;
for my $f (@ARGV) {
    open(my $fh, '<', $f) or next;
    my @l = <$fh>;
    close($fh);
    for (my $i = 0; $i < @l; $i++) {
        next unless $l[$i] =~ /\b(if|while)\s*\(/;
        my $text = join('', @l[$i .. ($i + 8 < $#l ? $i + 8 : $#l)]);
        $text =~ s{/\*.*?\*/}{ }gs;
        $text =~ s{'(\\.|[^'\\])'}{'x'}g;
        $text =~ s{"(\\.|[^"\\])*"}{""}g;
        while ($text =~ /\b(?:if|while)\s*\(/g) {
            my $start = pos($text);
            my ($depth, $j) = (1, $start);
            while ($j < length($text) && $depth > 0) {
                my $c = substr($text, $j, 1);
                $depth++ if $c eq '(';
                $depth-- if $c eq ')';
                $j++;
            }
            last if $depth > 0;
            my $cond = substr($text, $start, $j - 1 - $start);
            last if $start > length($l[$i]);   # only conditions starting here
            if ($cond =~ /(?<![=!<>])=(?!=)/) {
                print "$f:", $i + 1, ": assignment in condition\n";
            }
            my $rest = substr($text, $j);
            $rest =~ s/\n.*//s;
            if ($rest =~ /^\s*[^\s{\\;]/ && $rest !~ /^\s*(\/\/|&&|\|\||\))/) {
                print "$f:", $i + 1, ": statement on the condition's line\n";
            }
            last;
        }
    }
}
