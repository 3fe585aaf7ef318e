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
    y := local y;  -- a local name: kk[lam, gens R] would rebind the caller's variables to the new ring's
    T := kk[lam, y_1..y_(numgens R)];
    toT := map(T, R, drop(gens T, 1));
    gT := toT g;
    Y := transpose matrix{drop(gens T, 1)};
    v := sub(G, T) * (Y - transpose matrix{apply(u, a -> sub(a, T))});
    -- entry by entry: matrices of a g that is not homogeneous have different degrees and cannot be subtracted
    ideal(gT) + ideal apply(numgens R, i -> v_(i, 0) - T_0 * diff(T_(i + 1), gT)))

-- the same critical points on a cone {g = 0} (g homogeneous of degree d >= 2), scaled: y = t z with
-- lam t^(d-1) = 1 turns G (y - u) = lam grad g(y) into G (t z - u) = grad g(z), of degree d - 1 in z, and by
-- Euler's formula (z . grad g = d g) g(z) = 0 into t z^T G z = z^T G u.  In kk[t, z] with the GRevLex order.
-- Each critical point is d - 1 solutions with t != 0 (t times a (d-1)-st root of unity), with its multiplicity
-- (the map (t, z) -> (t^(1-d), t z) is etale where t != 0 and d - 1 is a unit); a solution with t = 0 has
-- grad g(z) = -G u, which generic u avoids.  Its Groebner bases may finish sooner than hypersurfaceCritical's:
-- msolve counts the boundary d = d' = 3, t = 4 in 62 s against 145 s (bench/cone_counts.py).
coneCritical = method()
coneCritical(RingElement, Matrix, List) := Ideal => (g, G, u) -> (
    R := ring g;
    kk := coefficientRing R;
    t := local t;
    z := local z;
    T := kk[t, z_1..z_(numgens R)];
    toT := map(T, R, drop(gens T, 1));
    Z := transpose matrix{drop(gens T, 1)};
    Gz := sub(G, T) * (T_0 * Z - transpose matrix{apply(u, a -> sub(a, T))});
    gT := toT g;
    ideal apply(numgens R, i -> Gz_(i, 0) - diff(T_(i + 1), gT)) + ideal((transpose Z * Gz)_(0, 0)))

-- the system whose degree counts the critical points of hypersurfaceCritical, and how many solutions each
-- critical point has in it: (coneCritical, d - 1) where g is homogeneous of degree d >= 3 (for a quadric the
-- scaled system is no simpler), the characteristic divides neither d nor d - 1, G is invertible, g(u) != 0 and
-- no solution has t = 0 (checked by F4), else (hypersurfaceCritical, 1)
criticalCountingSystem = method()
criticalCountingSystem(RingElement, Matrix, List) := Sequence => (g, G, u) -> (
    R := ring g;
    kk := coefficientRing R;
    d := first degree g;
    p := char kk;
    plain := () -> (hypersurfaceCritical(g, G, u), 1);
    if not isHomogeneous g or d < 3 or (p > 0 and (d % p == 0 or (d - 1) % p == 0)) then return plain();
    if det sub(G, kk) == 0 or sub(g, matrix{apply(u, a -> sub(a, kk))}) == 0 then return plain();
    L := coneCritical(g, G, u);
    T := ring L;
    if degree ideal leadTerm groebnerBasis(L + ideal(T_0), Strategy => "F4") != 0 then return plain();
    (L, d - 1))

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
