-- AttentionGeometry: critical points of a squared distance (Euclidean distance degrees): on the closure, in weight
-- space, on a hypersurface, with the linear weights solved in closed form; and the points of a
-- zero-dimensional ideal.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

-- critical points of y -> (y - u)^T G (y - u) on the smooth part of V(I): Lagrange multipliers for all
-- generators (G (y - u) in the row space of the Jacobian), the multipliers eliminated, then the singular
-- locus saturated away: by all c x c minors of the Jacobian, or (RandomMinor => true) by one random c x c
-- minor det(A J B), which removes the same points except with probability ~ 1/#field (and is far cheaper)
distanceCritical = method(Options => {RandomMinor => true})
distanceCritical(Ideal, Matrix, List) := Ideal => o -> (I, G, u) -> (
    R := ring I;
    kk := coefficientRing R;
    n := numgens R;
    gs := first entries gens I;
    m := #gs;
    c := codim I;
    lam := local lam;
    T := kk[lam_1..lam_m, gens R, MonomialOrder => Eliminate m];
    toT := map(T, R, drop(gens T, m));
    J := toT jacobian I;
    y := transpose matrix{drop(gens T, m)};
    v := sub(G, T) * (y - transpose matrix{apply(u, a -> sub(a, T))});
    L := toT(I) + ideal(v - J * transpose matrix{take(gens T, m)});
    E := sub(ideal selectInSubring(1, gens gb L), R);
    sing := if o.RandomMinor then ideal det(random(kk^c, kk^n) * jacobian I * random(kk^m, kk^c))
            else I + minors(c, jacobian I);
    saturate(E, sing))

-- the same critical points in weight space, for a parametrization F : R -> S whose generic fiber is the
-- scaling of the first weight: on the chart (first weight = 1), the gradient J (G (F - u)) = 0, saturated
-- by one random maximal minor of J (weights where F's Jacobian drops rank are not critical points of the
-- distance on the closure: they are the parametrization's own critical points)
weightCritical = method()
weightCritical(RingMap, Matrix, List) := Ideal => (F, G, u) -> (
    S := target F;
    kk := coefficientRing S;
    S1 := kk[drop(gens S, 1)];
    row := (map(S1, S, {1_S1} | gens S1)) F.matrix;
    J := jacobian row;
    y := transpose row - transpose matrix{apply(u, a -> sub(a, S1))};
    eqs := ideal(J * sub(G, S1) * y);
    saturate(eqs, ideal det(J * random(kk^(numcols J), kk^(numgens S1)))))

-- the same critical points as weightCritical, without the saturation: the parametrization's critical weights
-- are removed by a new variable z with z * det(J R) = 1 (Rabinowitsch), so that a Groebner basis in the
-- GRevLex order (F4 over a finite field) counts them.  Chart => the positions (from 0) of the weights set to 1
-- (default {0}, the first: one scaling); the ideal lives in kk[x_1..x_m, z], x the other weights in order
weightCriticalSystem = method(Options => {Chart => {0}})
weightCriticalSystem(RingMap, Matrix, List) := Ideal => o -> (F, G, u) -> (
    (S1, w, row, J, noncritical) := chartParts(F, o.Chart, null, true);
    y := transpose row - transpose matrix{apply(u, a -> sub(a, S1))};
    ideal(J * sub(G, S1) * y) + noncritical)

-- the Lagrange system of a squared distance on a hypersurface {g = 0}: g and G (y - u) - lam grad g, in
-- kk[lam, y] with the GRevLex order.  No elimination and no saturation: a solution with grad g = 0 has
-- y = u, so for u off the hypersurface every solution is a smooth critical point, with a unique lam.  Over
-- a finite field, degree ideal leadTerm groebnerBasis(L, Strategy => "F4") counts them fast.
hypersurfaceCritical = method()
hypersurfaceCritical(RingElement, Matrix, List) := Ideal => (g, G, u) -> (
    R := ring g;
    kk := coefficientRing R;
    lam := local lam;
    T := kk[lam, gens R];
    toT := map(T, R, drop(gens T, 1));
    gT := toT g;
    y := transpose matrix{drop(gens T, 1)};
    v := sub(G, T) * (y - transpose matrix{apply(u, a -> sub(a, T))});
    ideal(gT) + ideal(v - T_0 * transpose diff(matrix{drop(gens T, 1)}, gT)))

-- the critical points of a squared loss on a model c = M(v) a that is linear in the weights a for fixed v, where
-- the entries of M are linear forms in v (one attention layer: a the entries of A, v those of V).  For fixed v the
-- best a solves H a = b, H = M^T G M, b = M^T G u, and the least loss is P/Q with Q = det H and
-- P = det(H | b || b^T | u^T G u): forms of the same degree in v, so the critical points are those of P/Q on
-- P^(m-1): Q grad P = P grad Q with Q != 0.  On a random chart v = C (1, w) the derivative along the first direction
-- follows from the others by Euler's formula, and Q != 0 becomes z Q = 1.  In kk[w_1..w_(m-1), z].
profileCritical = method()
profileCritical(Matrix, Matrix, List) := Ideal => (M, G, u) -> (
    Sv := ring M;
    kk := coefficientRing Sv;
    m := numgens Sv;
    w := local w;
    z := local z;
    T := kk[apply(m - 1, i -> w_(i + 1)) | {z}];
    ws := drop(gens T, -1);
    chart := sub(random(kk^m, kk^m), T) * transpose matrix{{1_T} | ws};
    MT := (map(T, Sv, flatten entries chart)) M;
    GT := sub(G, T);
    uT := transpose matrix{apply(u, a -> sub(a, T))};
    H := transpose MT * GT * MT;
    b := transpose MT * GT * uT;
    P := det((H | b) || (transpose b | transpose uT * GT * uT));
    Q := det H;
    ideal(apply(ws, x -> Q * diff(x, P) - P * diff(x, Q))) + ideal(last gens T * Q - 1))

-- for a zero-dimensional ideal C: a monomial basis B of R/C and the matrices of multiplication by each
-- variable in that basis (column k: the coordinates of y_i * B_k); their common eigenvectors give the points
multiplicationMatrices = method()
multiplicationMatrices Ideal := List => C -> (
    if dim C > 0 then error "multiplicationMatrices: the ideal is not zero-dimensional";
    A := (ring C) / C;
    B := basis A;
    {first entries lift(B, ring C), apply(gens A, y -> lift(last coefficients(y * B, Monomials => B), coefficientRing A))})
