-- AttentionGeometry: the tests run by check "AttentionGeometry", in the order of the original file.
-- Loaded by ../AttentionGeometry.m2 after beginDocumentation(), with AuxiliaryFiles => true.

TEST ///
  -- d = 2, d' = 1, t = 2: the quartic hypersurface of Theorem 3.4 in a 6-dimensional span
  F = lightningParametrization(2, 1, 2, 2);
  assert(numgens source F == 6);
  I = implicitEquations F;
  assert(numgens I == 1 and first degree I_0 == 2 * 4); -- a quartic in the y_i, each of degree 2 in (A, V)
  assert(dim I == 5);
  -- a = 1 < d: Q and K are 1 x 2; the Jacobian has rank 4 (the dimension), also over ZZ/p
  G = lightningParametrization(2, 1, 1, 2, CoefficientRing => ZZ/32003);
  assert(char ring G.matrix == 32003);
  assert(rank jacobian G.matrix == 4);
  -- variants (dimensions from m2bridge's certified numeric ranks): two heads on d = 2, d' = 1 fill
  -- the 6-dimensional span; with the causal mask (t = 3) one head has dimension 5
  assert(rank jacobian (lightningParametrization(2, 1, 2, 2, Heads => 2)).matrix == 6);
  C = lightningParametrization(2, 1, 2, 3, Causal => true, CoefficientRing => ZZ/32003);
  assert(rank jacobian C.matrix == 5);
///

TEST ///
  setRandomSeed 0;
  S = QQ[a_1..a_4, v_1, v_2];
  R = QQ[y_1..y_6];
  F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
  I = implicitEquations F;
  -- the closure is the resultant of the two quadrics y_1 t^2 + y_2 t + y_3, y_4 t^2 + y_5 t + y_6
  T = R[t];
  r0 = resultant(y_1*t^2 + y_2*t + y_3, y_4*t^2 + y_5*t + y_6, t);
  assert(numgens I == 1);
  assert(ideal lift(r0, R) == I);
  assert(take(imageInfo I, 2) == {5, 4});
///

TEST ///
  -- the d = 2, d' = 1 layer as a projection of the rank-1 4 x 2 matrices T = vec(A) vec(V)^T:
  -- y = (T_11, T_12 + T_21, T_22, ...) and w = T_12 - T_21, ... are eliminated
  ST = QQ[w_1, w_2, y_1..y_6, MonomialOrder => Eliminate 2];
  Tm = matrix {{y_1, (y_2 + w_1)/2}, {(y_2 - w_1)/2, y_3}, {y_4, (y_5 + w_2)/2}, {(y_5 - w_2)/2, y_6}};
  R = QQ[y_1..y_6];
  S = QQ[a_1..a_4, v_1, v_2];
  F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
  assert(segreImplicitEquations(Tm, 2, R) == implicitEquations F);
///

TEST ///
  setRandomSeed 0;
  S = QQ[s, t];
  R = QQ[x_0..x_3];
  F = map(S, R, {s^3, s^2*t, s*t^2, t^3});
  I = implicitEquations F;
  assert(take(imageInfo I, 2) == {2, 3});
  -- over QQ: s = w, t = 2w with w^3 = 1 splits as w = 1 and w^2 + w + 1 = 0
  assert(#fiberComponents(F, {1, 2}) == 2);
///

TEST ///
  -- the affine cone over a general cubic curve in P^2: ED degree 3 (1 + 2) = 9 (sum of polar degrees)
  R = ZZ/32003[y_1..y_3];
  L = hypersurfaceCritical(y_1^3 + 2*y_2^3 + 5*y_3^3 - 7*y_1*y_2*y_3 + y_1^2*y_2, id_(R^3), {3, -2, 5});
  assert(degree ideal leadTerm groebnerBasis(L, Strategy => "F4") == 9);
  -- a general quadric cone in 4 variables: 2 (4 - 1) = 6
  R = QQ[y_1..y_4];
  assert(degree hypersurfaceCritical(y_1^2 + 2*y_2^2 - 3*y_3^2 + 5*y_4^2, id_(R^4), {1, 2, 3, 4}) == 6);
  -- 2x2 matrices of rank 1 as a b^T in weight space: Eckart-Young, binomial(2, 1) = 2
  kk = ZZ/32003;
  S = kk[a_1, a_2, b_1, b_2];
  R = kk[y_1..y_4];
  F = map(S, R, {a_1*b_1, a_1*b_2, a_2*b_1, a_2*b_2});
  assert(degree ideal leadTerm groebnerBasis(weightCriticalSystem(F, id_(kk^4), {1, 2, 3, 5}), Strategy => "F4") == 2);
  -- the same rank-1 matrices as M(b) a with M(b) = b (x) I_2: Eckart-Young again, 2
  T = kk[b_1, b_2];
  M = matrix{{b_1, 0}, {0, b_1}, {b_2, 0}, {0, b_2}};
  assert(degree ideal leadTerm groebnerBasis(profileCritical(M, id_(kk^4), {1, 2, 3, 5}), Strategy => "F4") == 2);
  -- 3 x 3 matrices of rank 1 as b a^T, M(b) = b (x) I_3: binomial(3, 1) = 3
  T = kk[b_1..b_3];
  M = matrix table(9, 3, (i, j) -> if i % 3 == j then b_(i // 3 + 1) else 0_T);
  assert(degree ideal leadTerm groebnerBasis(profileCritical(M, id_(kk^9), {1, 2, 3, 5, 7, 11, 13, 17, 19}), Strategy => "F4") == 3);
///

TEST ///
  -- the scaled system on a cone: each critical point d - 1 times.  General plane curves of degree d: ED degree
  -- d + d (d - 1) = d^2 (sum of polar degrees), for the identity and for another inner product
  R = ZZ/32003[y_1..y_3];
  cubic = y_1^3 + 2*y_2^3 + 5*y_3^3 - 7*y_1*y_2*y_3 + y_1^2*y_2;
  (L, k) = criticalCountingSystem(cubic, id_(R^3), {3, -2, 5});
  assert(k == 2 and degree ideal leadTerm groebnerBasis(L, Strategy => "F4") == 2 * 9);
  -- a cubic whose count depends on G (5 for the identity, 9 for this G): the scaled system must read G
  h = (y_1^2 + y_2^2 + y_3^2) * y_3 + y_1^3;
  G = matrix(ZZ/32003, {{2, 1, 0}, {1, 3, 0}, {0, 0, 1}});
  (L, k) = criticalCountingSystem(h, G, {3, -2, 5});
  assert(k == 2 and degree L == 2 * degree hypersurfaceCritical(h, G, {3, -2, 5}));
  -- the guards: G singular, u on the hypersurface, a characteristic dividing d - 1: the Lagrange system
  assert(last criticalCountingSystem(cubic, matrix(ZZ/32003, {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}}), {3, -2, 5}) == 1);
  assert(last criticalCountingSystem(y_1^3 + y_2^3 - y_3^3, id_(R^3), {1, 0, 1}) == 1);
  S = ZZ/2[x_1..x_3];
  assert(last criticalCountingSystem(x_1^3 + x_2^3 + x_3^3 + x_1*x_2*x_3, id_(S^3), {1, 0, 1}) == 1);
  -- a quadric: the Lagrange system (the scaled one is no simpler)
  assert(last criticalCountingSystem(y_1^2 + 2*y_2^2 - 3*y_3^2, id_(R^3), {1, 2, 3}) == 1);
  (L, k) = criticalCountingSystem(y_1^4 + y_2^4 + y_3^4 + y_1*y_2^2*y_3, id_(R^3), {1, 2, 7});
  assert(k == 3 and degree L == 3 * 16);
  -- not a cone: the Lagrange system itself
  (L, k) = criticalCountingSystem(y_1^3 + y_2^2 - y_3, id_(R^3), {1, 2, 3});
  assert(k == 1 and degree L == degree hypersurfaceCritical(y_1^3 + y_2^2 - y_3, id_(R^3), {1, 2, 3}));
  -- u = -grad g(z0) with g(z0) = 0, z0 = (1, -1, 0): the scaled system has solutions with t = 0 (18 = 2 * 7 + 4),
  -- so the Lagrange system counts (7 critical points: this u lies on the ED discriminant)
  g = y_1^3 + y_2^3 + y_3^3 - y_1*y_2*y_3;
  u = {-3, -3, -1};
  assert(degree coneCritical(g, id_(R^3), u) == 18);
  (L, k) = criticalCountingSystem(g, id_(R^3), u);
  assert(k == 1 and degree L == 7);
///

TEST ///
  -- Eckart-Young: rank <= r matrices of size m x n with the Frobenius form have ED degree binomial(min(m,n), r)
  R = QQ[y_1..y_6];
  Y = genericMatrix(R, 2, 3);
  assert(degree distanceCritical(minors(2, Y), id_(QQ^6), {1, -2, 3, 5, 7, -11}) == 2);
  R = QQ[y_1..y_9];
  Y = genericMatrix(R, 3, 3);
  assert(degree distanceCritical(minors(3, Y), id_(QQ^9), {1, -2, 3, 5, 7, -11, 13, 2, -1}) == 3);
  -- a general affine quadric in 3 variables: ED degree 2 * 3 = 6 (Draisma et al. 2016)
  S = QQ[x_1..x_3];
  f = x_1^2 + 2*x_2^2 + 5*x_3^2 + x_1*x_2 - 3*x_2*x_3 + x_1 - 2*x_3 + 7;
  C = distanceCritical(ideal f, id_(QQ^3), {1, 2, 3}, RandomMinor => false);
  assert(degree C == 6);
  (B, Ms) = toSequence multiplicationMatrices C;
  assert(#B == 6 and #Ms == 3);
  -- the same count in weight space: 2x2 matrices of rank 1 as a b^T, ED degree binomial(2, 1) = 2
  S = QQ[a_1, a_2, b_1, b_2];
  R = QQ[y_1..y_4];
  F = map(S, R, {a_1*b_1, a_1*b_2, a_2*b_1, a_2*b_2});
  assert(degree weightCritical(F, id_(QQ^4), {1, 2, 3, 5}) == 2);
///

TEST ///
  -- the d = 2, d' = 1 layer: a quartic hypersurface in 6 coordinates, so the Hilbert function of R/I is
  -- binomial(k+5, 5) - binomial(k+1, 5)
  S = QQ[a_1..a_4, v_1, v_2];
  R = QQ[y_1..y_6];
  F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
  (hf, gs) = toSequence idealThroughDegree(F, 5);
  assert(hf == apply(6, k -> binomial(k + 5, 5) - binomial(k + 1, 5)));
  assert(#gs == 1 and ideal gs == implicitEquations F);
  -- P^3 x P^1 has degree binomial(4, 1) = 4 and an affine cone of dimension 4 + 2 - 1 = 5
  assert(projectionDegree(F, 4, {1, 2, 3, 5, 7, 11}) == {4, 5, true, true});
  assert(last completenessCheck(ideal gs, F, 5, 4));
  -- an embedded component at the origin keeps dimension and degree but is caught
  J = ideal(gs_0) * ideal vars R;
  assert(not isUnmixed J);
  assert(completenessCheck(J, F, 5, 4) == {true, 5, 4, false});
  -- missing generators: the degree-2 part of the (2,2) layer's ideal is not the whole ideal
  S2 = QQ[b_1..b_4, w_1..w_4];
  R2 = QQ[z_1..z_12];
  F2 = map(S2, R2, flatten apply(2, r -> flatten apply(2, k -> {b_(2*k+1)*w_(2*r+1), b_(2*k+1)*w_(2*r+2) + b_(2*k+2)*w_(2*r+1), b_(2*k+2)*w_(2*r+2)})));
  (hf2, gs2) = toSequence idealThroughDegree(F2, 2);
  assert(#gs2 == 5);
  assert(not last completenessCheck(ideal gs2, F2, 7, 20));
///

TEST ///
  -- the (2,2) layer (T = vec(A) vec(V)^T projected): its 5 quadrics and 10 quartics generate its ideal, which is
  -- not Cohen-Macaulay; the chart v_1 = 1 certifies them.  The quadrics alone (quartics missing) and the ideal times
  -- the maximal ideal (an embedded component at the origin, where the denominators vanish) are not certified.
  S = QQ[b_1..b_4, w_1..w_4, Degrees => {4:{1, 0}, 4:{0, 1}}];
  R = QQ[z_1..z_12];
  F = map(S, R, flatten apply(2, r -> flatten apply(2, k -> {b_(2*k+1)*w_(2*r+1),
      b_(2*k+1)*w_(2*r+2) + b_(2*k+2)*w_(2*r+1), b_(2*k+2)*w_(2*r+2)})));
  (hf, gs) = toSequence idealThroughDegree(F, 4);
  assert(#gs == 15);
  Rp = ZZ/32003[z_1..z_12];
  J = sub(ideal gs, Rp);
  L = chartLocalization(J, F, Chart => {4});
  assert(first L and #L#2 > 0);
  assert(not first chartLocalization(sub(ideal select(gs, f -> first degree f == 2), Rp), F, Chart => {4}));
  E = chartLocalization(J * ideal vars Rp, F, Chart => {4});
  assert(not first E and match("zero divisor", E#1));
  -- a linear form that does not vanish on the closure is not taken on trust
  W = chartLocalization(J + ideal(z_1 + 2*z_5 - z_9), F, Chart => {4});
  assert(not first W and match("does not vanish", W#1));
///

TEST ///
  -- singularByCharts on the layer d = 2, d' = 1 (two tokens): the singular locus is the image of the rank-one
  -- weights (the projection route's answer, an independent computation).
  S = QQ[A_(1,1), A_(1,2), A_(2,1), A_(2,2), V_(1,1), V_(1,2),
      Degrees => {{1,1,0,0}, {1,0,1,0}, {1,1,0,0}, {1,0,1,0}, {1,0,0,1}, {1,0,0,1}}];
  R = QQ[y_1..y_6, Degrees => {{2,0,1,1}, {2,0,1,1}, {2,1,0,1}, {2,1,0,1}, {2,0,1,1}, {2,1,0,1}}];
  F = map(S, R, {A_(2,2)*V_(1,2), A_(1,2)*V_(1,1), A_(2,1)*V_(1,2), A_(1,1)*V_(1,1),
      A_(1,2)*V_(1,2) + A_(2,2)*V_(1,1), A_(1,1)*V_(1,2) + A_(2,1)*V_(1,1)});
  assert(first singularByCharts F);
  -- a map that is not one layer (one product scaled in one coordinate only): the route does not claim it
  G = map(S, R, {A_(2,2)*V_(1,2), A_(1,2)*V_(1,1), A_(2,1)*V_(1,2), A_(1,1)*V_(1,1),
      A_(1,2)*V_(1,2) + 2*A_(2,2)*V_(1,1), A_(1,1)*V_(1,2) + A_(2,1)*V_(1,1)});
  assert(not first singularByCharts G);
///

TEST ///
  -- the relative boundary of the layer d = 2, d' = 1: the image of A = u b^T, V = c u^T has dimension 3 = 2d + d' - 2
  -- and degree 4 (P^1 x P^1 under forms of degree (2, 1): (2 h1 + h2)^2 = 4); a function of conjugate weights has no
  -- real weights, one of a complex multiple of a real vector (v = u) has.
  S = QQ[A_(1,1), A_(1,2), A_(2,1), A_(2,2), V_(1,1), V_(1,2),
      Degrees => {{1,1,0,0}, {1,0,1,0}, {1,1,0,0}, {1,0,1,0}, {1,0,0,1}, {1,0,0,1}}];
  R = QQ[y_1..y_6, Degrees => {{2,0,1,1}, {2,0,1,1}, {2,1,0,1}, {2,1,0,1}, {2,0,1,1}, {2,1,0,1}}];
  F = map(S, R, {A_(2,2)*V_(1,2), A_(1,2)*V_(1,1), A_(2,1)*V_(1,2), A_(1,1)*V_(1,1),
      A_(1,2)*V_(1,2) + A_(2,2)*V_(1,1), A_(1,1)*V_(1,2) + A_(2,1)*V_(1,1)});
  B = sameVectorLocus F;
  assert(dim B == 3 and degree sub(B, QQ[gens R]) == 4);
  realRoots := p -> (x := symbol x; P := QQ[x]; f := sum(#p, i -> p#i * P_0^(#p - 1 - i));
      -- Sturm's count of distinct real roots: sign changes at -infinity minus at +infinity
      seq := {f, diff(P_0, f)}; while last seq != 0 do seq = append(seq, -(seq#-2 % seq#-1)); seq = drop(seq, -1);
      changes := l -> (l = select(l, x -> x != 0); #select(#l - 1, i -> l#i * l#(i + 1) < 0));
      lead := g -> leadCoefficient g;
      changes apply(seq, g -> lead g * (-1)^(first degree g)) - changes apply(seq, lead));
  assert(realRoots last conjugateSample(F, {{1, 2}, {-1, 3}, {2, -1}, {1}}, 1/10) == 0);
  assert(realRoots last conjugateSample(F, {{1, 2}, {1, 2}, {2, -1}, {1}}, 1/10) > 0);
  assert(layerRanks(F, {{1, 2, 3, 4, 5, 6}, {1, 2}, {-1, 3}, {1}, {2, 5}}) == {5, 5, 4});
  -- the rank-one locus (dimension 4, degree 3 by its ideal): P^1 x P^1 x P^0 x P^1 of degree 6 over a fiber of 2
  assert(rankOneDegree(F, {1, -2, 3, 1, 2, 5, -1}) == {4, 0, 2, true, 6});
  Z = rankOneLocus F;
  assert(dim Z == 4 and degree sub(Z, QQ[gens R]) == 3);
///
