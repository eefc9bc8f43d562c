#!/usr/bin/env python3
"""promql.py - a small PromQL parser for tests/e2e/monitoring.sh: the
syntax check of alert and dashboard expressions when promtool is not
installed, and, always, the list of series selectors an expression uses
(metric name and label matchers), which the test looks up in the webhook's
/metrics output.

It follows Prometheus 2.x's grammar (promql/parser/generated_parser.y):
binary operators with their precedence and associativity, `bool`,
`on`/`ignoring`, `group_left`/`group_right`, aggregations with `by` or
`without` before or after the arguments, function calls with the argument
types of Prometheus's function table, selectors with =, !=, =~, !~,
range selectors, subqueries, `offset` and `@`, numbers (Inf, NaN, hex,
exponents), durations (1h30m) and strings. Types are checked as
Prometheus checks them (rate() of an instant vector, a range vector in a
binary operation, `bool` on a non-comparison are errors). Regular
expressions are compiled with Python's re (RE2 and Python agree on the
syntax used in alerts). It is not a full reimplementation: what promtool
accepts and this rejects is a bug here; the reverse is what promtool is
preferred for.

  parse(text) -> Expr (raises PromQLError with the offset)
  selectors(expr) -> [(name or None, [(label, op, value)])]
"""
import re
import sys

AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar",
                "count", "count_values", "bottomk", "topk", "quantile"}
AGG_PARAM = {"count_values": "string", "bottomk": "scalar", "topk": "scalar",
             "quantile": "scalar"}
V, M, S, STR = "vector", "matrix", "scalar", "string"
# name -> (argument types, how many of the last ones are optional (-1: any
# number of string arguments may follow), return type)
FUNCTIONS = {
    "abs": ([V], 0, V), "absent": ([V], 0, V),
    "absent_over_time": ([M], 0, V), "ceil": ([V], 0, V),
    "changes": ([M], 0, V), "clamp": ([V, S, S], 0, V),
    "clamp_max": ([V, S], 0, V), "clamp_min": ([V, S], 0, V),
    "day_of_month": ([V], 1, V), "day_of_week": ([V], 1, V),
    "day_of_year": ([V], 1, V), "days_in_month": ([V], 1, V),
    "delta": ([M], 0, V), "deriv": ([M], 0, V), "exp": ([V], 0, V),
    "floor": ([V], 0, V), "histogram_quantile": ([S, V], 0, V),
    "holt_winters": ([M, S, S], 0, V), "hour": ([V], 1, V),
    "idelta": ([M], 0, V), "increase": ([M], 0, V), "irate": ([M], 0, V),
    "label_replace": ([V, STR, STR, STR, STR], 0, V),
    "label_join": ([V, STR, STR, STR], -1, V),
    "ln": ([V], 0, V), "log2": ([V], 0, V), "log10": ([V], 0, V),
    "minute": ([V], 1, V), "month": ([V], 1, V),
    "predict_linear": ([M, S], 0, V), "rate": ([M], 0, V),
    "resets": ([M], 0, V), "round": ([V, S], 1, V), "scalar": ([V], 0, S),
    "sgn": ([V], 0, V), "sort": ([V], 0, V), "sort_desc": ([V], 0, V),
    "sqrt": ([V], 0, V), "time": ([], 0, S), "timestamp": ([V], 0, V),
    "vector": ([S], 0, V), "year": ([V], 1, V), "pi": ([], 0, S),
    "avg_over_time": ([M], 0, V), "min_over_time": ([M], 0, V),
    "max_over_time": ([M], 0, V), "sum_over_time": ([M], 0, V),
    "count_over_time": ([M], 0, V), "stddev_over_time": ([M], 0, V),
    "stdvar_over_time": ([M], 0, V), "last_over_time": ([M], 0, V),
    "present_over_time": ([M], 0, V), "quantile_over_time": ([S, M], 0, V),
    "acos": ([V], 0, V), "acosh": ([V], 0, V), "asin": ([V], 0, V),
    "asinh": ([V], 0, V), "atan": ([V], 0, V), "atanh": ([V], 0, V),
    "cos": ([V], 0, V), "cosh": ([V], 0, V), "sin": ([V], 0, V),
    "sinh": ([V], 0, V), "tan": ([V], 0, V), "tanh": ([V], 0, V),
    "deg": ([V], 0, V), "rad": ([V], 0, V),
}
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "bool", "offset", "atan2"}
# precedence, lowest first; ^ is right-associative
PRECEDENCE = [("or",), ("and", "unless"), ("==", "!=", "<=", "<", ">=", ">"),
              ("+", "-"), ("*", "/", "%", "atan2"), ("^",)]
COMPARISON = {"==", "!=", "<=", "<", ">=", ">"}
SET_OPS = {"and", "or", "unless"}

TOKEN = re.compile(r"""
  (?P<ws>\s+|\#[^\n]*)
| (?P<duration>(?:[0-9]+(?:ms|[smhdwy]))+(?![A-Za-z0-9_]))
| (?P<number>0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
| (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)
| (?P<ident>(?!:[0-9])[A-Za-z_:][A-Za-z0-9_:]*)
| (?P<op>=~|!~|==|!=|<=|>=|[-+*/%^<>=,(){}\[\]:@])
""", re.X)


class PromQLError(Exception):
    pass


class Expr:
    def __init__(self, kind, typ, **kw):
        self.kind, self.type = kind, typ
        self.__dict__.update(kw)


def tokenize(text):
    toks, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise PromQLError("unexpected character %r at %d" %
                              (text[pos], pos))
        kind = m.lastgroup
        if kind != "ws":
            toks.append((kind, m.group(), pos))
        pos = m.end()
    toks.append(("eof", "", len(text)))
    return toks


def unquote(s):
    if s[0] == "`":
        return s[1:-1]
    out, i, body = [], 0, s[1:-1]
    esc = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"',
           "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 1
            if i >= len(body) or body[i] not in esc:
                raise PromQLError("unknown escape sequence in %s" % s)
            out.append(esc[body[i]])
        else:
            out.append(c)
        i += 1
    return "".join(out)


class Parser:
    def __init__(self, text):
        self.toks = tokenize(text)
        self.i = 0

    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def fail(self, what):
        kind, val, pos = self.peek()
        raise PromQLError("%s at %d (found %s)" %
                          (what, pos, repr(val) if val else "end of input"))

    def accept(self, val):
        if self.peek()[1] == val and self.peek()[0] in ("op", "ident"):
            return self.next()
        return None

    def expect(self, val):
        if not self.accept(val):
            self.fail("expected %r" % val)

    # -- expressions ---------------------------------------------------------
    def parse(self):
        e = self.binary(0)
        if self.peek()[0] != "eof":
            self.fail("unexpected token")
        return e

    def binary_op(self, level):
        kind, val, _ = self.peek()
        if kind in ("op", "ident") and val in PRECEDENCE[level]:
            # '=' alone is no operator; an ident op must be a keyword
            return val
        return None

    def binary(self, level):
        if level == len(PRECEDENCE):
            return self.unary()
        lhs = self.binary(level + 1)
        while True:
            op = self.binary_op(level)
            if not op:
                return lhs
            self.next()
            mods = self.modifiers(op)
            # ^ is right-associative: its right side is parsed at its level
            rhs = self.binary(level if op == "^" else level + 1)
            lhs = self.combine(op, lhs, rhs, mods)

    def modifiers(self, op):
        mods = {"bool": False, "matching": None, "group": None}
        if self.accept("bool"):
            if op not in COMPARISON:
                self.fail("bool modifier can only be used on comparison "
                          "operators")
            mods["bool"] = True
        for kw in ("on", "ignoring"):
            if self.accept(kw):
                mods["matching"] = (kw, self.label_list())
                break
        for kw in ("group_left", "group_right"):
            if self.accept(kw):
                if not mods["matching"]:
                    self.fail("%s needs on() or ignoring()" % kw)
                if op in SET_OPS:
                    self.fail("no grouping allowed for %r operation" % op)
                labels = self.label_list() if self.peek()[1] == "(" else []
                mods["group"] = (kw, labels)
                break
        return mods

    def combine(self, op, lhs, rhs, mods):
        for side in (lhs, rhs):
            if side.type not in (S, V):
                raise PromQLError("binary expression must contain only "
                                  "scalar and instant vector types, not %s"
                                  % side.type)
        if op in SET_OPS and (lhs.type != V or rhs.type != V):
            raise PromQLError("set operator %r not allowed in binary scalar "
                              "expression" % op)
        if op in COMPARISON and lhs.type == S and rhs.type == S \
                and not mods["bool"]:
            raise PromQLError("comparisons between scalars must use BOOL "
                              "modifier")
        if (mods["matching"] or mods["group"]) and (lhs.type != V or
                                                   rhs.type != V):
            raise PromQLError("vector matching only allowed between instant "
                              "vectors")
        typ = V if V in (lhs.type, rhs.type) else S
        return Expr("binary", typ, op=op, lhs=lhs, rhs=rhs, mods=mods)

    def unary(self):
        if self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.next()[1]
            e = self.unary()
            if e.type not in (S, V):
                raise PromQLError("unary expression only allowed on "
                                  "expressions of type scalar or instant "
                                  "vector")
            return Expr("unary", e.type, op=op, expr=e)
        return self.postfix(self.primary())

    def postfix(self, e):
        while True:
            if self.peek()[1] == "[":
                self.next()
                rng = self.duration()
                if self.accept(":"):
                    step = self.duration() if self.peek()[0] == "duration" \
                        else None
                    self.expect("]")
                    if e.type != V:
                        raise PromQLError("subquery is only allowed on "
                                          "instant vector, got %s" % e.type)
                    e = Expr("subquery", M, expr=e, range=rng, step=step)
                else:
                    self.expect("]")
                    if e.kind != "selector" or e.type != V or \
                            getattr(e, "modified", False):
                        raise PromQLError("ranges only allowed for vector "
                                          "selectors")
                    e = Expr("matrix", M, expr=e, range=rng)
            elif self.peek()[1] == "offset" and self.peek()[0] == "ident":
                self.next()
                neg = bool(self.accept("-"))
                d = self.duration()
                self.modify(e, "offset", "-" + d if neg else d)
            elif self.peek()[1] == "@":
                self.next()
                if self.peek()[0] == "ident" and \
                        self.peek()[1] in ("start", "end"):
                    self.next()
                    self.expect("(")
                    self.expect(")")
                else:
                    self.number()
                self.modify(e, "at", True)
            else:
                return e

    def modify(self, e, what, val):
        if e.kind not in ("selector", "matrix", "subquery"):
            raise PromQLError("%s modifier must be preceded by an instant "
                              "vector selector or range vector selector or "
                              "a subquery" % what)
        if getattr(e, what, None) is not None:
            raise PromQLError("%s may not be set multiple times" % what)
        setattr(e, what, val)
        e.modified = True

    def duration(self):
        kind, val, _ = self.peek()
        if kind != "duration":
            self.fail("expected a duration")
        self.next()
        return val

    def number(self):
        sign = -1 if self.accept("-") else 1
        if sign > 0:
            self.accept("+")
        kind, val, _ = self.peek()
        if kind == "number":
            self.next()
            return sign * (int(val, 16) if val[:2].lower() == "0x"
                           else float(val))
        if kind == "ident" and val.lower() in ("inf", "nan"):
            self.next()
            return sign * float(val)
        self.fail("expected a number")

    def primary(self):
        kind, val, pos = self.peek()
        if kind == "number":
            self.next()
            return Expr("number", S, value=val)
        if kind == "duration":
            self.fail("unexpected duration")
        if kind == "string":
            self.next()
            return Expr("string", STR, value=unquote(val))
        if val == "(" and kind == "op":
            self.next()
            e = self.binary(0)
            self.expect(")")
            return Expr("paren", e.type, expr=e)
        if val == "{" and kind == "op":
            return self.selector(None)
        if kind == "ident":
            low = val.lower()
            if low in ("inf", "nan"):
                self.next()
                return Expr("number", S, value=val)
            if val in AGGREGATIONS and self.peek(1)[1] in ("(", "by",
                                                           "without"):
                return self.aggregation()
            if self.peek(1)[1] == "(" and self.peek(1)[0] == "op":
                return self.call()
            if val in KEYWORDS:
                self.fail("unexpected keyword")
            self.next()
            return self.selector(val)
        self.fail("unexpected token")

    def label_list(self):
        self.expect("(")
        labels = []
        while self.peek()[1] != ")":
            kind, val, _ = self.next()
            if kind != "ident":
                self.i -= 1
                self.fail("expected a label name")
            labels.append(val)
            if not self.accept(","):
                break
        self.expect(")")
        return labels

    def selector(self, name):
        matchers = []
        if self.peek()[1] == "{":
            self.next()
            while self.peek()[1] != "}":
                kind, label, _ = self.next()
                if kind != "ident":
                    self.i -= 1
                    self.fail("expected a label matcher")
                kind, op, _ = self.next()
                if op not in ("=", "!=", "=~", "!~"):
                    self.i -= 1
                    self.fail("expected a label matching operator")
                kind, val, _ = self.next()
                if kind != "string":
                    self.i -= 1
                    self.fail("expected a string")
                val = unquote(val)
                if op in ("=~", "!~"):
                    try:
                        re.compile(val)
                    except re.error as e:
                        raise PromQLError("invalid regular expression %r: %s"
                                          % (val, e))
                if label == "__name__":
                    if name is not None:
                        raise PromQLError("metric name set twice")
                matchers.append((label, op, val))
                if not self.accept(","):
                    break
            self.expect("}")
        if name is None and not any(
                not re.fullmatch(v, "") if op == "=~" else
                (v != "" if op == "=" else (op == "!=" and v == ""))
                for _, op, v in matchers):
            raise PromQLError("vector selector must contain at least one "
                              "non-empty matcher")
        return Expr("selector", V, name=name, matchers=matchers, offset=None,
                    at=None)

    def arguments(self):
        """'(' expression, ... ')' of a function call or an aggregation"""
        self.expect("(")
        args = []
        while self.peek()[1] != ")":
            args.append(self.binary(0))
            if not self.accept(","):
                break
        self.expect(")")
        return args

    def call(self):
        _, name, pos = self.next()
        if name not in FUNCTIONS:
            raise PromQLError("unknown function with name %r at %d" %
                              (name, pos))
        want, optional, ret = FUNCTIONS[name]
        args = self.arguments()
        # optional < 0: any number of further (string) arguments
        lo = len(want) - max(optional, 0)
        hi = len(want) if optional >= 0 else 1 << 30
        if not lo <= len(args) <= hi:
            raise PromQLError("%s() takes %s arguments, got %d" %
                              (name, lo if lo == hi else "%d or more" % lo
                               if hi == 1 << 30 else "%d to %d" % (lo, hi),
                               len(args)))
        for k, a in enumerate(args):
            t = want[k] if k < len(want) else STR
            if a.type != t:
                raise PromQLError("expected type %s in call to function %r, "
                                  "got %s" % (t, name, a.type))
        return Expr("call", ret, name=name, args=args)

    def aggregation(self):
        _, op, _ = self.next()
        grouping = None
        if self.peek()[1] in ("by", "without"):
            kw = self.next()[1]
            grouping = (kw, self.label_list())
        args = self.arguments()
        if self.peek()[1] in ("by", "without") and self.peek()[0] == "ident":
            if grouping:
                self.fail("grouping given twice")
            kw = self.next()[1]
            grouping = (kw, self.label_list())
        want = ([AGG_PARAM[op]] if op in AGG_PARAM else []) + [V]
        if len(args) != len(want):
            raise PromQLError("wrong number of arguments for aggregate "
                              "expression provided, expected %d, got %d" %
                              (len(want), len(args)))
        for a, t in zip(args, want):
            if a.type != t:
                raise PromQLError("expected type %s in aggregation %r, got "
                                  "%s" % (t, op, a.type))
        return Expr("aggregation", V, op=op, args=args, grouping=grouping)


def parse(text):
    return Parser(text).parse()


def selectors(e):
    """every vector selector in e: (name, matchers)"""
    out = []

    def walk(x):
        if x.kind == "selector":
            name = x.name
            ms = []
            for label, op, v in x.matchers:
                if label == "__name__" and op == "=":
                    name = v
                else:
                    ms.append((label, op, v))
            out.append((name, ms))
        for k in ("expr", "lhs", "rhs"):
            if hasattr(x, k):
                walk(getattr(x, k))
        for a in getattr(x, "args", []):
            walk(a)
    walk(e)
    return out


if __name__ == "__main__":
    rc = 0
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            e = parse(line)
            print("ok %s %s" % (e.type, selectors(e)))
        except PromQLError as err:
            print("error %s: %s" % (line, err))
            rc = 1
    sys.exit(rc)
