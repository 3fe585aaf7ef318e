-- Session prelude of the m2bridge Python bridge (loaded once per M2 process).
--
-- Protocol: Python sends, on two lines,
--     m2bridge'run(ID, MODE, "code");
--     m2bridge'end(ID);
-- run prints a begin marker, evaluates the code with `value`, prints a value
-- marker and the value (MODE 0: toString, MODE 1: the typed serialization
-- below; MODE + 2: the code ended with ';', so its value is null).  If the code fails, M2 prints its error and goes on with the second
-- line, whose end marker Python waits for.  Markers are built here from a
-- per-session nonce, so they never appear in echoed input or in values.

m2bridge'nonce = "";
m2bridge'mark = (kind, rid) -> (stdio << "@" << m2bridge'nonce << kind << rid << "@";);
m2bridge'init = n -> (m2bridge'nonce = n; printWidth = 0;);
m2bridge'end = rid -> (m2bridge'mark("D", rid); stdio << endl << flush;);

-- typed serialization, parsed by m2bridge/serialize.py:
--   i<int>;  q<num>/<den>;  r<real>;  s<len>:<bytes>  T F N
--   l<n>:<items>  t<n>:<items>  I<list of generators>
--   p<list of variable names><n>:{<exponents>;<coefficient>}  (polynomial)
--   z<rows>,<cols>:<comma separated ints>;  m<rows>,<cols>:<entries>
--   f<p>;<int>;  (element of ZZ/p)   y<rows>,<cols>,<p>:<comma separated ints>;  (matrix over ZZ/p)
--   o<class name string><toString string>  (anything else)
m2bridge'str = s -> concatenate("s", toString(#s), ":", s);
m2bridge'ser = method(Dispatch => Thing);
m2bridge'ser Thing := x -> concatenate("o", m2bridge'str toString class x, m2bridge'str toString x);
m2bridge'ser Nothing := x -> "N";
m2bridge'ser Boolean := x -> if x then "T" else "F";
m2bridge'ser ZZ := x -> concatenate("i", toString x, ";");
m2bridge'ser QQ := x -> concatenate("q", toString numerator x, "/", toString denominator x, ";");
m2bridge'ser RR := x -> concatenate("r", format(0, x), ";");
m2bridge'ser String := m2bridge'str;
m2bridge'ser List := x -> concatenate("l", toString(#x), ":", apply(x, m2bridge'ser));
m2bridge'ser Sequence := x -> concatenate("t", toString(#x), ":", apply(x, m2bridge'ser));
m2bridge'ser Ideal := x -> concatenate("I", m2bridge'ser first entries gens x);
m2bridge'primeField = R -> instance(R, QuotientRing) and ambient R === ZZ;
m2bridge'ser Matrix := x -> (
    if ring x === ZZ then concatenate("z", toString numrows x, ",", toString numcols x, ":",
        demark(",", apply(flatten entries x, toString)), ";")
    else if m2bridge'primeField ring x then concatenate("y", toString numrows x, ",", toString numcols x, ",",
        toString char ring x, ":", demark(",", apply(flatten entries x, e -> toString lift(e, ZZ))), ";")
    else concatenate("m", toString numrows x, ",", toString numcols x, ":",
        apply(flatten entries x, m2bridge'ser)));
m2bridge'ser RingElement := x -> (
    R := ring x;
    if instance(R, PolynomialRing) then (
        terms := listForm x;
        concatenate("p", m2bridge'ser apply(gens R, toString), toString(#terms), ":",
            apply(terms, t -> concatenate(demark(",", apply(t#0, toString)), ";", m2bridge'ser t#1))))
    else if m2bridge'primeField R then concatenate("f", toString char R, ";", toString lift(x, ZZ), ";")
    else concatenate("o", m2bridge'str toString class x, m2bridge'str toString x));

m2bridge'run = (rid, mode, code) -> (
    m2bridge'mark("B", rid);
    r := value code;
    if mode >= 2 then (r = null; mode = mode - 2);  -- code ended with ';' as at the M2 prompt
    m2bridge'mark("V", rid);
    stdio << (if mode == 1 then m2bridge'ser r else if r === null then "" else toString r);
    );
