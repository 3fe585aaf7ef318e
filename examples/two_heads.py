"""Two heads on d = 3, d' = 1 (documentation: Mathematics, section 8): the closure is the resultant hypersurface.

One head gives three ternary quadrics q_k(z) = (v.z)(A[:,k].z) sharing the line v.z = 0 (Thm. 3.4's
picture one dimension up).  Two heads give q_k(z) = (v_1.z)(A_1[:,k].z) + (v_2.z)(A_2[:,k].z): all three
vanish where v_1.z = v_2.z = 0, the point v_1 x v_2 of the projective plane.  So the image lies in
{Res(q_1, q_2, q_3) = 0}, an irreducible hypersurface of the 18 quadric coefficients; the image has
dimension 17 (Jacobian rank, exact over QQ), so its closure is that hypersurface, of degree 12
(counted on a random line with Macaulay2's Resultants package).  The fiber has, besides the gauges,
scalings and the mixing of heads, a symmetry of sums of heads found by this project: A_1 -> A_1 + v_2 c^T,
A_2 -> A_2 - v_1 c^T (the "head_shift" group, checked in the Jacobian's kernel).  Usage: two_heads.py
"""

from m2bridge.network import LightningAttention
from m2bridge.bridge.session import default_session
from m2bridge.numeric.dimension import numeric_dimension

arch = LightningAttention((3, 1), 3, 2, heads=2)
num = numeric_dimension(arch)
print(num)
assert num.dimension == 17 and num.certificate == "certified maximal"
assert num.fiber.explained["head_shift"] == 3  # the new symmetry: d = 3 directions, all in the kernel

m2 = default_session()
m2.eval("""
needsPackage "Resultants";
setRandomSeed 0;
S = QQ[a_(1,1,1)..a_(2,3,3), v_(1,1)..v_(2,3)][z_1..z_3, Join => false];
A = h -> matrix table(3, 3, (p, k) -> a_(h, p + 1, k + 1));
lin = h -> sum(3, p -> v_(h, p + 1) * z_(p + 1));
q = apply(3, k -> sum({1, 2}, h -> lin h * sum(3, p -> (A h)_(p, k) * z_(p + 1))));
-- the 18 coordinates: the quadrics' coefficients, as polynomials in the 24 weights
-- (the quadratic monomials in z written out: basis(2, S) of a tower ring differs between M2 versions)
quadMons = R -> flatten apply(3, i -> apply(toList(i..2), j -> R_i * R_j));
mons = quadMons S;
coords = flatten apply(q, f -> apply(mons, m -> coefficient(m, f)));
W = coefficientRing S;
-- (1) the common zero: v_1 x v_2 kills all three quadrics identically
cross = {v_(1,2)*v_(2,3) - v_(1,3)*v_(2,2), v_(1,3)*v_(2,1) - v_(1,1)*v_(2,3), v_(1,1)*v_(2,2) - v_(1,2)*v_(2,1)};
commonZero = all(q, f -> sub(f, apply(3, i -> z_(i + 1) => cross#i)) == 0);
-- (2) the dimension: rank over QQ of the Jacobian at a random integer point (a lower bound)
pt = apply(gens W, g -> g => random(-9, 9));
jacRank = rank sub(jacobian matrix {coords}, pt);
-- (3) Resultants: Res vanishes at an image point, not at a random triple of quadrics
A0 = QQ[z_1..z_3];
atImage = resultant apply(q, f -> sub(sub(f, pt), A0));
atRandom = resultant apply(3, k -> random(2, A0));
-- (4) the degree: Res restricted to a random line q^a + t q^b of triples of quadrics
T = QQ[t]; L = T[z_1..z_3, Join => false];
lineRes = resultant apply(3, k -> sum(quadMons L, m -> (random(QQ) + t * random(QQ)) * m));
""")
common_zero = m2.eval("commonZero") == "true"
rank = int(m2.eval("jacRank"))
at_image, at_random = m2.eval("atImage"), m2.eval("atRandom")
degree = int(m2.eval("first degree lineRes"))
print(f"three quadrics vanish at v_1 x v_2: {common_zero}")
print(f"rank of the Jacobian at a random integer point: {rank} of 18 coordinates (dimension of the closure)")
print(f"Res at an image point: {at_image}; at a random triple: {at_random}")
print(f"Res on a random line: a polynomial of degree {degree} in t, so the hypersurface has degree {degree}")
assert common_zero and rank == 17 and at_image == "0" and at_random != "0" and degree == 12
print("identified: the closure of two heads on d = 3, d' = 1 is the resultant hypersurface of three ternary "
      "quadrics (codimension 1, degree 12)")
