"""The twisted cubic and a Segre variety through the bridge: implicitization, dimension, degree."""

from m2bridge import Macaulay2

with Macaulay2() as m2:
    m2.eval("S = QQ[s,t]; R = QQ[x_0..x_3]; F = map(S, R, {s^3, s^2*t, s*t^2, t^3}); I = kernel F;")
    print("twisted cubic:", m2.to_python("I"), "dim", m2.eval("dim I"), "degree", m2.eval("degree I"))
    m2.eval("S = QQ[a_0,a_1,b_0,b_1,b_2]; R = QQ[z_0..z_5]; "
            "G = map(S, R, flatten apply(2, i -> apply(3, j -> a_i*b_j))); J = kernel G;")
    print("Segre P1 x P2:", m2.to_python("J"), "dim", m2.eval("dim J"), "degree", m2.eval("degree J"))
