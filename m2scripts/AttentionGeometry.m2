newPackage(
    "AttentionGeometry",
    Version => "0.1",
    Date => "2026-11-22",
    Headline => "implicit equations, singularities and fibers of lightning self-attention",
    Authors => {{Name => "m2bridge developers"}},
    Keywords => {"Commutative Algebra"},
    PackageImports => {"PrimaryDecomposition", "MinimalPrimes"},
    DebuggingMode => false
    )

export {
    "implicitEquations",
    "segreImplicitEquations",
    "standardGraded",
    "imageInfo",
    "componentInfo",
    "singularComponents",
    "criticalComponents",
    "fiberComponents",
    "lightningParametrization",
    "Heads",
    "ValueRank",
    "Causal",
    "Residual",
    "GenericRank",
    "MaxRank",
    "idealThroughDegree",
    "isUnmixed",
    "projectionDegree",
    "completenessCheck",
    "distanceCritical",
    "weightCritical",
    "multiplicationMatrices",
    "hypersurfaceCritical",
    "weightCriticalSystem",
    "chartFiber",
    "chartDegree",
    "Chart",
    "ChartValues",
    "profileCritical",
    "lossOnCriticalLocus",
    "lossGradient",
    "rankOneCritical",
    "RandomMinor",
    "chartLocalization",
    "MaxDenominatorDegree",
    "MaxCommonSize"
    }

-- The neuromanifold of a network is the image of a ring map F : R -> S
-- (R: reduced coordinates y_i, S: weights).  Python (m2bridge) builds F;
-- a person can build it by hand just as well (see the examples below).

implicitEquations = method()
implicitEquations RingMap := Ideal => F -> trim kernel F

-- the closure of the image of the rank-1 matrices T under a linear projection: T is a matrix of
-- linear forms over a ring whose first c variables are eliminated; the result lives in R, whose
-- variables carry the names of the remaining ones
segreImplicitEquations = method(Options => {MaxRank => 1})
-- without R: the ideal in a new standard graded ring with the remaining variables of ring T, in
-- their order.  The elimination's Groebner basis is a Groebner basis there too (Eliminate c
-- restricted to those variables is their GRevLex order), so it is installed with the minimal
-- generators: trim, dim, degree and hilbertSeries of the result cost nothing more.
-- MaxRank => r: the projection of the matrices of rank <= r (a sum of r heads), from the
-- (r+1)-minors, whose Hilbert series is that of the generic determinantal ideal.
segreImplicitEquations(Matrix, ZZ) := Ideal => o -> (T, c) -> (
    ST := ring T;
    r := o.MaxRank;
    -- the entries of T are independent linear forms, so minors(r+1, T) has the Hilbert series of the
    -- generic rank-<=r matrices; installing it makes the elimination Hilbert-driven
    if numgens ST != numrows T * numcols T or any(degrees ST, d -> d != {1}) then
        error "segreImplicitEquations: T must have one independent linear form per variable of a standard graded ring";
    R2 := (coefficientRing ST)(monoid[drop(gens ST, c)]);
    if r >= min(numrows T, numcols T) then return ideal(0_R2); -- every matrix has rank <= r
    G0 := (coefficientRing ST)(monoid[Variables => numgens ST]);
    J := minors(r + 1, T);
    installHilbertFunction(J, sub(poincare minors(r + 1, genericMatrix(G0, numrows T, numcols T)), degreesRing ST));
    G := selectInSubring(1, gens gb J);
    G1 := sub(G, R2);
    forceGB G1;
    I1 := ideal sub(G, R2);  -- a fresh copy: its minimal generators, by a Hilbert-driven computation
    installHilbertFunction(I1, poincare ideal G1);
    G2 := sub(G, R2);
    forceGB(G2, MinimalMatrix => gens trim I1);
    ideal G2)
segreImplicitEquations(Matrix, ZZ, Ring) := Ideal => o -> (T, c, R) -> sub(segreImplicitEquations(T, c, o), R)

-- a copy of an ideal in the same variables with every degree 1
standardGraded = method()
standardGraded Ideal := Ideal => I -> (
    R := ring I;
    if all(degrees R, d -> d == {1}) then return I;
    R1 := (coefficientRing R)[gens R];
    sub(I, vars R1))

imageInfo = method()
imageInfo Ideal := List => I -> (
    J := standardGraded I;
    {dim J, degree J, toString reduceHilbert hilbertSeries J, apply(first entries gens trim J, f -> first degree f)})

componentInfo = method()
componentInfo Ideal := List => P -> (
    P1 := if isHomogeneous P then standardGraded P else P;
    {dim P1, degree P1, first entries gens trim P})

singularComponents = method()
singularComponents Ideal := List => I -> (
    c := codim I;
    sing := trim(I + minors(c, jacobian I));
    if sing == 1 then return {};
    apply(decompose sing, trim))

criticalComponents = method(Options => {GenericRank => null})
criticalComponents RingMap := List => o -> F -> (
    jac := jacobian F.matrix;
    r := if o.GenericRank =!= null then o.GenericRank else rank jac;
    crit := trim minors(r, jac);
    if crit == 1 then return {};
    apply(decompose crit, trim))

fiberComponents = method()
fiberComponents(RingMap, List) := List => (F, point) -> (
    S := source F;
    T := target F;
    if #point != numgens T then error("expected ", toString numgens T, " coordinates for the weight point");
    images := first entries F.matrix;
    vals := apply(images, f -> sub(f, matrix{apply(point, v -> sub(v, coefficientRing T))}));
    I := trim ideal apply(images, vals, (f, v) -> f - v);
    apply(decompose I, trim))

-- one lightning self-attention layer Y = V X (X^T A X) with A = Q^T K (X: d x t tokens), as the ring
-- map from the coordinates of the linear span of its output coefficients to the weights
lightningParametrization = method(Options => {CoefficientRing => QQ, Heads => 1, ValueRank => null,
        Causal => false, Residual => false})
lightningParametrization(ZZ, ZZ, ZZ, ZZ) := RingMap => o -> (d, e, a, t) -> (
    if min(d, e, a, t) < 1 then error "lightningParametrization: d, d', a and t must be positive integers";
    H := o.Heads;
    if not instance(H, ZZ) or H < 1 then error "lightningParametrization: Heads must be a positive integer";
    b := o.ValueRank;
    if b =!= null and (not instance(b, ZZ) or b < 1) then error "lightningParametrization: ValueRank must be a positive integer";
    if o.Residual and d != e then error "lightningParametrization: a skip connection (Residual) needs d = d'";
    kk := o.CoefficientRing;
    (symA, symQ, symK, symV, symO, symU, symX, symY) := toSequence apply({"A", "Q", "K", "V", "O", "U", "x", "y"}, getSymbol);
    -- per head h: a >= d: a free d x d attention matrix A; a < d: A = Q^T K with Q, K of size a x d;
    -- V free (e x d), or V = O U of rank <= b (O: e x b, U: b x d)
    attVars := h -> if a >= d then toList(symA_(h,1,1)..symA_(h,d,d))
        else toList(symQ_(h,1,1)..symQ_(h,a,d)) | toList(symK_(h,1,1)..symK_(h,a,d));
    valVars := h -> if b === null then toList(symV_(h,1,1)..symV_(h,e,d))
        else toList(symO_(h,1,1)..symO_(h,e,b)) | toList(symU_(h,1,1)..symU_(h,b,d));
    S := kk[flatten apply(toList(1..H), h -> attVars h | valVars h)];
    offset := 0;
    block := (r, c) -> (m := matrix table(r, c, (i, j) -> S_(offset + i*c + j)); offset = offset + r*c; m);
    heads := apply(toList(1..H), h -> (
        Am := if a >= d then block(d, d) else (Qm := block(a, d); transpose Qm * block(a, d));
        Vm := if b === null then block(e, d) else (Om := block(e, b); Om * block(b, d));
        (Am, Vm)));
    T := S[symX_(1,1)..symX_(d,t), Join => false];
    X := matrix table(d, t, (i, j) -> T_(i*t + j));
    mask := M -> if o.Causal then matrix table(t, t, (i, j) -> if i <= j then M_(i,j) else 0_T) else M;
    Y := sum(heads, AV -> sub(AV#1, T) * X * mask(transpose X * sub(AV#0, T) * X));
    -- a skip connection adds the tokens themselves: coefficients 1 outside the cubic part, dropped
    -- (the closure of the translate is the translate of the closure)
    -- the raw coordinates: every coefficient (in S) of every output entry, entry by entry
    raw := flatten apply(flatten entries Y, f -> apply(flatten entries last coefficients f, c -> lift(c, S)));
    -- the reduced coordinates: the first raw coordinates that are linearly independent over kk
    kept := {};
    scan(select(raw, f -> f != 0), f -> (
        cand := append(kept, f);
        if rank last coefficients matrix {cand} == #cand then kept = cand));
    R := kk[symY_1..symY_(#kept), Degrees => apply(kept, f -> first degree f)];
    map(S, R, kept))

-- the closure's ideal degree by degree, by linear algebra: in degree k, a combination of the degree-k
-- monomials of R (standard grading) vanishes on the image exactly when its image under F is zero, so
-- the ideal's degree-k part is the kernel of a matrix of coefficients; the new minimal generators are
-- the kernel vectors outside the degree-k part of the ideal of the lower ones.  Returns
-- {Hilbert function of R/I in degrees 0..K, minimal generators of degree <= K}.
idealThroughDegree = method()
idealThroughDegree(RingMap, ZZ) := List => (F, K) -> (
    R0 := source F;
    kk := coefficientRing R0;
    R := kk[gens R0];  -- standard graded
    G := map(target F, R, F.matrix);
    hf := {1};
    found := {};
    for k from 1 to K do (
        B := basis(k, R);
        C := last coefficients(G B);
        N := gens ker sub(C, kk);
        prods := flatten apply(found, f -> flatten entries(f * basis(k - first degree f, R)));
        low := if prods == {} then map(kk^(numcols B), kk^0, 0)
            else sub(last coefficients(matrix{prods}, Monomials => B), kk);
        chosen := low;
        scan(numcols N, j -> (
            cand := chosen | N_{j};
            if rank cand > rank chosen then (chosen = cand; found = append(found, (B * N_{j})_(0,0)))));
        hf = append(hf, numcols B - numcols N));
    {hf, apply(found, f -> sub(f, vars R0))})

-- no associated prime of codimension larger than codim I (Eisenbud-Huneke-Vasconcelos: the
-- associated primes of codimension i of R/I are among those of Ext^i(R/I, R))
isUnmixed = method()
isUnmixed Ideal := Boolean => I -> (
    R := ring I;
    M := R^1 / I;
    c := codim I;
    p := pdim M;
    all(toList(c + 1 .. p), i -> codim Ext^i(M, R) > i))

-- F: every image bilinear in the first m variables of the target and the others, i.e. a linear
-- projection of the Segre variety P^(m-1) x P^(n-1).  Computes its degree and dimension, whether the
-- projection has base points on it, and the fiber of the image of the given point (as a scheme).
-- With no base points the projection is finite; a fiber of length one at any image point then makes
-- it birational (fiber length is upper semicontinuous), so the image has the Segre variety's degree.
projectionDegree = method()
projectionDegree(RingMap, ZZ, List) := List => (F, m, point) -> (
    S := target F;
    n := numgens S - m;
    X := take(gens S, m);
    Y := drop(gens S, m);
    ims := first entries F.matrix;
    if any(ims, f -> any(terms f, t -> sum(X, x -> degree(x, t)) != 1 or sum(Y, y -> degree(y, t)) != 1)) then
        error "projectionDegree: every image must be bilinear in the first m variables and the others";
    kk := coefficientRing S;
    G0 := kk[Variables => m * n];
    segre := minors(2, genericMatrix(G0, m, n));
    base := saturate(saturate(ideal ims, ideal X), ideal Y);
    pt := sub(matrix{point}, kk);
    y0 := sub(F.matrix, pt);
    fib := saturate(saturate(minors(2, F.matrix || sub(y0, S)), ideal X), ideal Y);
    p0 := minors(2, matrix{X} || sub(pt_{0 .. m - 1}, S)) + minors(2, matrix{Y} || sub(pt_{m .. m + n - 1}, S));
    {degree segre, dim segre, base == 1, fib == p0})

-- the checks that make J (in the coordinates of F's source) the closure's ideal, given the closure's
-- affine dimension and degree: J vanishes on the image, has that dimension and degree, and is unmixed;
-- then the closure's ideal P (prime) is J's only associated prime, with multiplicity one, so J = P
completenessCheck = method()
completenessCheck(Ideal, RingMap, ZZ, ZZ) := List => (J, F, dimension, deg) -> (
    J1 := standardGraded J;
    vanishes := all(first entries gens J, f -> F f == 0);
    {vanishes, dim J1, degree J1, vanishes and dim J1 == dimension and degree J1 == deg and isUnmixed J1})

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

-- F on the chart (the weights at positions chart set to values, all 1 when values is null) in kk[x_1..x_m] (the
-- other weights, in order; and z, withZ): the ring, the x's, F's row there, its Jacobian J in them, and (withZ)
-- z * det(J R) - 1 for a random R, which removes the critical weights (else the zero ideal: the determinant of an
-- m x m polynomial matrix is costly, and only the critical-point systems need it)
chartParts = (F, chart, values, withZ) -> (
    S := target F;
    kk := coefficientRing S;
    z := local z;
    x := local x; -- new symbols: a ring made with the weights' own names would rebind them for the caller
    kept := select(numgens S, i -> not member(i, chart));
    S1 := if withZ then kk[x_1..x_(#kept), z] else kk[x_1..x_(#kept)];
    w := if withZ then drop(gens S1, -1) else gens S1;
    images := new MutableList from toList(numgens S : 1_S1);
    scan(#kept, k -> images#(kept#k) = w#k);
    if values =!= null then scan(#chart, k -> images#(chart#k) = sub(values#k, S1));
    row := (map(S1, S, toList images)) F.matrix;
    J := diff(transpose matrix{w}, row);
    (S1, w, row, J, if withZ then ideal(last gens S1 * det(J * random(kk^(numcols J), kk^(#w))) - 1)
                    else ideal 0_S1))

-- the same critical points as weightCritical, without the saturation: the parametrization's critical weights
-- are removed by a new variable z with z * det(J R) = 1 (Rabinowitsch), so that a Groebner basis in the
-- GRevLex order (F4 over a finite field) counts them.  Chart => the positions (from 0) of the weights set to 1
-- (default {0}, the first: one scaling); the ideal lives in kk[x_1..x_m, z], x the other weights in order
weightCriticalSystem = method(Options => {Chart => {0}})
weightCriticalSystem(RingMap, Matrix, List) := Ideal => o -> (F, G, u) -> (
    (S1, w, row, J, noncritical) := chartParts(F, o.Chart, null, true);
    y := transpose row - transpose matrix{apply(u, a -> sub(a, S1))};
    ideal(J * sub(G, S1) * y) + noncritical)

-- the points of the chart (Chart => the weights set to ChartValues, all 1 by default) where F takes its value at a
-- random point of the chart: its degree is the number of chart points in a generic fiber (1 when the chart fixes one
-- scaling).  No condition removes the critical weights: in characteristic 0 a generic fiber has none (a set of
-- critical weights mapping onto the image would, by generic smoothness, contain weights where F has full rank)
chartFiber = method(Options => {Chart => {0}, ChartValues => null})
chartFiber RingMap := Ideal => o -> F -> (
    (S1, w, row, J, noncritical) := chartParts(F, o.Chart, o.ChartValues, false);
    kk := coefficientRing S1;
    point := map(S1, S1, apply(w, v -> random kk));
    ideal(row - point row))

-- the points of the chart (as in chartFiber) where F meets a random affine linear space of codimension the number
-- of free weights.  When those weights map generically finitely onto the image, a generic such space meets the
-- closure of the image in degree-many generic points, each with the chart points of a generic fiber: the degree of
-- this ideal is the closure's degree times the degree of chartFiber (with the same Chart and ChartValues)
chartDegree = method(Options => {Chart => {0}, ChartValues => null})
chartDegree RingMap := Ideal => o -> F -> (
    (S1, w, row, J, noncritical) := chartParts(F, o.Chart, o.ChartValues, false);
    kk := coefficientRing S1;
    ideal(random(kk^(#w), kk^(numcols row)) * transpose row - random(kk^(#w), kk^1)))

-- A completeness certificate that needs no elimination and no Cohen-Macaulay closure.  J (in F's source R) is
-- generated by equations of the closure, P its prime ideal, and the chart (the weights at positions Chart set to
-- ChartValues, all 1 by default) maps onto a dense subset of the closure.  Over kk = coefficientRing ring J, a
-- finite field:
--  1. for each free weight x_j of the chart a denominator h_j (a form in R: first one common to all of them, looked
--     for where its numerators span at most MaxCommonSize forms of each degree; else one per weight, one already
--     found used again where it serves) and a numerator g_j with g_j(F) = x_j h_j(F) on the chart: the chart's
--     inverse x = g/h, found by linear algebra in the grading that the chart keeps;
--  2. every coordinate y_i = c_i(g/h) modulo J: y_i times the product of the h_j it needs, minus c_i(g/h) times it,
--     reduces to 0 by J's Groebner basis;
--  3. each denominator a nonzerodivisor mod J: R/(J + (h)) has the Hilbert series (1 - t^e) HS(R/J) (always a lower
--     bound for it, with equality exactly when J : h = J; Groebner bases by mathicgb, whose classic reducer ("MGB")
--     is about 4 times faster than its F4 reducer on these ideals: a Hilbert-driven basis would abort Macaulay2 where
--     h is a zero divisor).
-- Then, with h the product of the denominators, R_h/J_h is generated by the g_j/h_j, which map to the free weights
-- (algebraically independent) in R_h/P'_h, P' the kernel of the chart's pull-back: so J_h = P'_h, J : h^oo = P',
-- and with 3., J = P'.
-- (Checked too: J is homogeneous and its generators vanish on the chart, so J lies in P'.)
-- Returns {true/false, what was found or why not, the denominators, the seconds of steps 1 to 3}.
chartLocalization = method(Options => {Chart => {0}, ChartValues => null, MaxDenominatorDegree => 3,
    MaxCommonSize => 2000, Verbose => false})
chartLocalization(Ideal, RingMap) := List => o -> (J, F) -> (
    R := source F;
    S := target F;
    kk := coefficientRing ring J;
    if char kk == 0 then error "chartLocalization: J must be over a finite field (its Groebner bases are mathicgb's)";
    n := numgens R;
    fixed := o.Chart;
    free := select(numgens S, i -> not member(i, fixed));
    dS := degrees S;
    keep := select(#(dS#0), k -> all(fixed, i -> (dS#i)#k == 0));
    x := local x; y := local y;
    Sc := kk[x_1..x_(#free), Degrees => apply(free, i -> (dS#i)_keep)];
    value := i -> if o.ChartValues === null then 1_Sc else sub(o.ChartValues#(position(fixed, j -> j == i)), Sc);
    toC := map(Sc, S, apply(numgens S, i -> if member(i, fixed) then value i else Sc_(position(free, j -> j == i))));
    -- the y-degree first, then the grading the chart keeps (each coordinate is homogeneous in it)
    Rg := kk[y_1..y_n, Degrees => apply(n, i -> {1} | (degree toC F R_i))];
    Rs := kk[y_1..y_n];
    toS := map(Rs, Rg, gens Rs);
    cmap := map(Sc, Rg, apply(n, i -> toC F R_i));
    coeffs := M -> lift(last coefficients M, kk);
    -- the forms of y-degree e and chart-degree k
    forms := (e, k) -> flatten entries basis({e} | k, Rg);
    -- a numerator g with g(F) = z h(F) (of y-degree that of h or one more), or null
    numer := (z, h) -> (
        (e, k) := (first degree h, drop(degree h, 1));
        Bg := forms(e, k + degree z) | forms(e + 1, k + degree z);
        if #Bg == 0 then return null;
        K := gens ker coeffs matrix{{z * cmap h} | apply(Bg, b -> cmap b)};
        c := position(toList(0 .. numcols K - 1), c -> K_(0, c) != 0);
        if c === null then null else - sum(#Bg, i -> (K_(i + 1, c) / K_(0, c)) * Bg#i));
    -- the chart-degrees of the forms of y-degree delta: sums of delta of the coordinates' chart-degrees (substituting
    -- every monomial to read its degree took most of the search's time)
    steps := unique apply(n, i -> drop(degree Rg_i, 1));
    chartDegrees := delta -> (
        ks := {apply(first steps, e -> 0)};
        scan(delta, i -> ks = unique flatten apply(ks, k -> apply(steps, v -> k + v)));
        ks);
    -- a denominator for the weights zs: a form of least degree (the first block of it that has one, its fewest terms)
    -- outside P', with z h(F) the image of a form for every z in zs; blocks whose numerators would span more than cap
    -- forms of one degree are skipped
    search := (zs, cap) -> (
        for delta from 0 to o.MaxDenominatorDegree do (
            for k in chartDegrees delta do (
                Bh := forms(delta, k);
                classes := unique apply(zs, degree);
                spans := apply(classes, dz -> forms(delta, k + dz) | forms(delta + 1, k + dz));
                if #Bh == 0 or any(spans, Bg -> #Bg > cap) then continue;
                -- the weights of one chart-degree share the span of their numerators: h serves them all when each
                -- z h(F) reduces to 0 modulo that span
                conds := apply(#classes, c -> (
                    zc := select(zs, z -> degree z == classes#c);
                    C := coeffs matrix{flatten apply(zc, z -> apply(Bh, b -> z * cmap b)) |
                        apply(spans#c, b -> cmap b)};
                    N := C_(toList(0 .. #zc * #Bh - 1));
                    rest := C_(toList(#zc * #Bh .. numcols C - 1));
                    red := if numcols rest == 0 then N else N % rest;
                    fold(apply(#zc, j -> red_(toList(j * #Bh .. (j + 1) * #Bh - 1))), (u, v) -> u || v)));
                H := gens ker fold(conds, (u, v) -> u || v);
                best := null;
                scan(numcols H, c -> (
                    f := sum(#Bh, i -> H_(i, c) * Bh#i);
                    if cmap f != 0 and (best === null or #terms f < #terms best) then best = f));
                if best =!= null then return best));
        null);
    t0 := cpuTime();
    hc := search(gens Sc, o.MaxCommonSize);  -- one for all the weights: fewer nonzerodivisor checks
    hs := if hc === null then {} else {hc};
    fracs := apply(gens Sc, z -> (
        fr := null;
        scan(hs, h -> if fr === null then (g := numer(z, h); if g =!= null then fr = (g, h)));
        if fr === null then (
            h := search({z}, infinity);
            g := if h === null then null else numer(z, h);
            if g =!= null then (hs = append(hs, h); fr = (g, h)));
        fr));
    t1 := cpuTime() - t0;
    note := msg -> if o.Verbose then printerr("chartLocalization: " | msg);
    note("denominators " | toString apply(hs, h -> toS h) | " in " | toString t1 | " s");
    if any(fracs, fr -> fr === null) then return {false, "no denominator of degree <= " |
        toString o.MaxDenominatorDegree | " for the chart's weight " | toString (gens S)#(free#(position(fracs,
        fr -> fr === null))), apply(hs, h -> toS h), {t1, 0, 0}};
    if not all(#fracs, j -> cmap first fracs#j == Sc_j * cmap last fracs#j) then
        error "chartLocalization: a numerator is wrong (a bug)";
    -- 2. the coordinates in terms of g/h, the denominators cleared (J must lie in P' and be homogeneous: the argument
    -- and the Hilbert series of step 3 need both)
    Js := sub(J, vars Rs);
    if not isHomogeneous Js then error "chartLocalization: J must be homogeneous";
    if any(first entries gens sub(J, vars Rg), f -> cmap f != 0) then return {false,
        "a generator of J does not vanish on the chart", apply(hs, h -> toS h), {t1, 0, 0}};
    t0 = cpuTime();
    G := groebnerBasis(Js, Strategy => "MGB");
    GB := forceGB G;  -- so that reductions use it as it is: % against the matrix itself would compute its basis again
    note("J's Groebner basis: " | toString numcols G | " elements, " | toString(cpuTime() - t0) | " s");
    -- y_i D - c_i(g/h) D (D the product of the denominators it needs) modulo J, reduced after every product: the
    -- normal form modulo G is a ring map to R/J, and the products themselves would grow beyond memory (deep networks)
    gs := apply(fracs, fr -> toS first fr);
    dens := apply(fracs, fr -> toS last fr);
    powers := new MutableHashTable;
    pow := (j, f, e) -> if powers#?(j, f, e) then powers#(j, f, e) else powers#(j, f, e) =
        if e == 0 then 1_Rs else (pow(j, f, e - 1) * (if f == 0 then gs#j else dens#j)) % GB;
    times := L -> fold(L, 1_Rs, (u, v) -> (u * v) % GB);
    cleared := i -> (
        c := cmap Rg_i;
        B := apply(#free, j -> max apply(terms c, t -> degree(Sc_j, t)));
        left := (Rs_i * times apply(#free, j -> pow(j, 1, B#j))) % GB;
        right := sum(terms c, t -> leadCoefficient t * times apply(#free, j -> (
            e := degree(Sc_j, t); (pow(j, 0, e) * pow(j, 1, B#j - e)) % GB)));
        (left - right) % GB);
    bad := select(n, i -> cleared i != 0);
    t2 := cpuTime() - t0;
    note("coordinates in the g/h: " | toString t2 | " s");
    if #bad > 0 then return {false, "the coordinate y_" | toString(1 + first bad) | " is not a polynomial in the " |
        "chart's weights g/h modulo J", apply(hs, h -> toS h), {t1, t2, 0}};
    -- 3. each denominator of positive degree is a nonzerodivisor mod J
    t0 = cpuTime();
    pJ := poincare ideal leadTerm G;
    positive := select(apply(hs, h -> toS h), h -> (first degree h) > 0);
    zd := select(positive, h -> (
        want := (1 - (ring pJ)_0^(first degree h)) * pJ;
        poincare ideal leadTerm groebnerBasis(Js + ideal h, Strategy => "MGB") != want));
    t3 := cpuTime() - t0;
    if #zd > 0 then return {false, "the denominator " | toString first zd | " is a zero divisor modulo J",
        apply(hs, h -> toS h), {t1, t2, t3}};
    {true, "the chart's weights are g/h, every coordinate is a polynomial in them modulo J, and every denominator " |
        "is a nonzerodivisor modulo J", apply(hs, h -> toS h), {t1, t2, t3}})

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

-- the gradient of the loss (F - u)^T G (F - u) in the weights (up to the factor 2), as an ideal of target F
lossGradient = method()
lossGradient(RingMap, Matrix, List) := Ideal => (F, G, u) -> (
    S := target F;
    row := F.matrix;
    ideal(jacobian row * sub(G, S) * transpose(row - matrix{apply(u, a -> sub(a, S))})))

-- the critical points of the loss (gradient ideal grad) on the part of the critical locus {A = s w^T, V = c s^T}
-- (paper Thm. 3.4) where A != 0 and V != 0, as the ideal of their closure in the weights: the gradient pulled back to
-- (s, w, c), the fiber (s, w, c) -> (t s, w / t, c / t) of that map fixed by a random chart l(s) = 1, w != 0 and
-- c != 0 by z l'(w) = 1 and z' l''(c) = 1, then the kernel of the map to the weights (far faster than decomposing
-- grad + the ideal of the component, which has more unknowns)
rankOneCritical = method()
rankOneCritical(Ideal, Matrix, Matrix) := Ideal => (grad, Am, Vm) -> (
    S := ring grad;
    kk := coefficientRing S;
    d := numrows Am;
    e := numrows Vm;
    x := local x;
    P := kk[x_1..x_(2 * d + e + 2)];
    sv := transpose matrix{take(gens P, d)};
    wv := transpose matrix{take(gens P, {d, 2 * d - 1})};
    cv := transpose matrix{take(gens P, {2 * d, 2 * d + e - 1})};
    images := flatten entries(sv * transpose wv) | flatten entries(cv * transpose sv);
    vars' := flatten entries Am | flatten entries Vm;
    phi := map(P, S, apply(gens S, v -> images#(position(vars', y -> y == v))));
    rand := xs -> sum(xs, y -> random(kk) * y);
    z := take(gens P, -2);
    J := phi grad + ideal(rand flatten entries sv - 1, z#0 * rand flatten entries wv - 1,
                          z#1 * rand flatten entries cv - 1);
    ker map(P / J, S, phi.matrix))

-- the critical points of the loss (F - u)^T G (F - u) in weight space that lie on the given components of the
-- parametrization's critical locus (criticalComponents F, or known ones): the minimal primes Q of K + (J G (F - u))
-- for each component K (given as an ideal, or as {K, a list of ideals whose zero sets together are the critical
-- points on K}), each once (with the indices of the components it lies on) and only when no other one contains
-- it, with the polynomial in z whose roots are the values of the loss on Q (irreducible over kk: the loss is
-- constant on an irreducible critical set); a list of {component indices, dim Q, degree Q, Q, poly, the indices
-- of the components that meet Q in a smaller set of critical points (left out as contained in Q)}
lossOnCriticalLocus = method()
lossOnCriticalLocus(RingMap, Matrix, List, List) := List => (F, G, u, comps) -> (
    S := target F;
    kk := coefficientRing S;
    row := F.matrix;
    e := row - matrix{apply(u, a -> sub(a, S))};
    grad := lossGradient(F, G, u);
    loss := (e * sub(G, S) * transpose e)_(0,0);
    w := local w;
    z := local z;
    T := kk[w_1..w_(numgens S), z, MonomialOrder => Eliminate numgens S];
    toT := map(T, S, drop(gens T, -1));
    Z := kk[z];
    pieces := flatten apply(#comps, k -> (
        parts := if instance(comps#k, List) then last comps#k else {grad + comps#k};
        flatten apply(parts, I -> if I == 1 then {} else apply(decompose I, Q -> {k, trim Q}))));
    distinct := {};
    scan(pieces, p -> (
        i := position(distinct, q -> q#1 == p#1);
        if i === null then distinct = append(distinct, {{p#0}, p#1})
        else if not member(p#0, distinct#i#0) then distinct = replace(i, {append(distinct#i#0, p#0), p#1}, distinct)));
    kept := select(distinct, p -> not any(distinct, q -> q#1 != p#1 and isSubset(q#1, p#1)));
    apply(kept, p -> (
        vals := selectInSubring(1, gens gb(toT(p#1) + ideal(last gens T - toT loss)));
        inside := unique flatten apply(select(distinct, q -> q#1 != p#1 and isSubset(p#1, q#1)), q -> q#0);
        {p#0, dim p#1, degree p#1, p#1, (map(Z, T, toList(numgens S : 0_Z) | {Z_0})) vals_(0, 0), inside})))

-- for a zero-dimensional ideal C: a monomial basis B of R/C and the matrices of multiplication by each
-- variable in that basis (column k: the coordinates of y_i * B_k); their common eigenvectors give the points
multiplicationMatrices = method()
multiplicationMatrices Ideal := List => C -> (
    if dim C > 0 then error "multiplicationMatrices: the ideal is not zero-dimensional";
    A := (ring C) / C;
    B := basis A;
    {first entries lift(B, ring C), apply(gens A, y -> lift(last coefficients(y * B, Monomials => B), coefficientRing A))})

beginDocumentation()

doc ///
Key
  AttentionGeometry
Headline
  implicit equations, singularities and fibers of lightning self-attention
Description
  Text
    The neuromanifold of a lightning self-attention network is the image of a
    polynomial map from weights to the coefficients of the network's output.
    Given that map as a @TO RingMap@ F from the coordinate ring R to the weight
    ring S, this package computes the Zariski closure of the image
    (@TO implicitEquations@), its singular locus (@TO singularComponents@),
    the critical points of the parametrization (@TO criticalComponents@) and
    the fiber of a weight point (@TO fiberComponents@).  The Python package
    m2bridge builds F from an architecture and drives these functions.
  Example
    S = QQ[a_1, a_2, a_3, a_4, v_1, v_2];
    R = QQ[y_1..y_6];
    -- one layer, d = 2, d' = 1: the pair of binary quadrics (l_1 m, l_2 m)
    F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
    I = implicitEquations F
    imageInfo I
///

doc ///
Key
  segreImplicitEquations
  (segreImplicitEquations, Matrix, ZZ, Ring)
  (segreImplicitEquations, Matrix, ZZ)
  [segreImplicitEquations, MaxRank]
  MaxRank
Headline
  the closure of a linear projection of the rank-one (or rank <= r) matrices
Usage
  I = segreImplicitEquations(T, c, R)
  I = segreImplicitEquations(T, c)
Inputs
  T:Matrix
    of linear forms over a ring whose first c variables are eliminated (MonomialOrder => Eliminate c)
  c:ZZ
  R:Ring
    whose variables carry the names of the remaining variables (without it: a new standard graded ring)
  MaxRank => ZZ
    r: project the matrices of rank at most r (default 1), as for a layer with r heads
Outputs
  I:Ideal
    the ideal in R of the closure of the image of the rank-one (rank <= r) matrices
Description
  Text
    In the attention-matrix form, each coordinate of one layer's neuromanifold is a linear form in
    the entries of T = vec(A) vec(V)^T; eliminating a complement of those coordinates from the 2x2
    minors of T gives the same ideal as @TO implicitEquations@, often faster.  A layer with H heads
    writes each coordinate as the same linear form in T = sum_h vec(A_h) vec(V_h)^T, a matrix of rank
    at most H: MaxRank => H eliminates from the (H+1)-minors instead.
  Example
    ST = QQ[w_1, w_2, y_1..y_6, MonomialOrder => Eliminate 2];
    Tm = matrix {{y_1, (y_2 + w_1)/2}, {(y_2 - w_1)/2, y_3}, {y_4, (y_5 + w_2)/2}, {(y_5 - w_2)/2, y_6}};
    segreImplicitEquations(Tm, 2, QQ[y_1..y_6])
///

doc ///
Key
  implicitEquations
  (implicitEquations, RingMap)
Headline
  the ideal of the Zariski closure of the image of a ring map
Usage
  I = implicitEquations F
Inputs
  F:RingMap
    from the coordinate ring to the weight ring
Outputs
  I:Ideal
    the kernel of F, trimmed to a minimal generating set
///

doc ///
Key
  imageInfo
  (imageInfo, Ideal)
Headline
  dimension, degree, Hilbert series and generator degrees of an image
Usage
  imageInfo I
Inputs
  I:Ideal
Outputs
  :List
    affine dimension, degree, reduced Hilbert series (as a string) and the degrees of the
    generators, all in the standard grading
///

doc ///
Key
  standardGraded
  (standardGraded, Ideal)
Headline
  the same ideal in a ring whose variables all have degree 1
Usage
  standardGraded I
Inputs
  I:Ideal
Outputs
  :Ideal
///

doc ///
Key
  componentInfo
  (componentInfo, Ideal)
Headline
  dimension, degree and generators of a component
Usage
  componentInfo P
Inputs
  P:Ideal
Outputs
  :List
    {dimension, degree, generators}
///

doc ///
Key
  singularComponents
  (singularComponents, Ideal)
Headline
  the irreducible components of the singular locus of a prime ideal's variety
Usage
  singularComponents I
Inputs
  I:Ideal
    prime
Outputs
  :List
    of prime ideals, the minimal primes of I plus the codim-size minors of its Jacobian
///

doc ///
Key
  criticalComponents
  (criticalComponents, RingMap)
  [criticalComponents, GenericRank]
Headline
  where the Jacobian of a parametrization drops rank
Usage
  criticalComponents F
Inputs
  F:RingMap
  GenericRank => ZZ
    the generic rank of the Jacobian (computed when not given)
Outputs
  :List
    of prime ideals in the weight ring
///

doc ///
Key
  fiberComponents
  (fiberComponents, RingMap, List)
Headline
  the weights that give the same point as a given weight point
Usage
  fiberComponents(F, point)
Inputs
  F:RingMap
  point:List
    values of the weight variables
Outputs
  :List
    of prime ideals, the components of the fiber
///

doc ///
Key
  lightningParametrization
  (lightningParametrization, ZZ, ZZ, ZZ, ZZ)
  [lightningParametrization, CoefficientRing]
  [lightningParametrization, Heads]
  [lightningParametrization, ValueRank]
  [lightningParametrization, Causal]
  [lightningParametrization, Residual]
  Heads
  ValueRank
  Causal
  Residual
Headline
  the parametrization of one lightning self-attention layer
Usage
  F = lightningParametrization(d, d', a, t)
Inputs
  d:ZZ
    the width of the tokens
  d':ZZ
    the output width (rows of V)
  a:ZZ
    the rank of the attention matrix (rows of Q and K)
  t:ZZ
    the number of tokens
  CoefficientRing => Ring
    the field of coefficients, QQ or ZZ/p
  Heads => ZZ
    the number of attention heads, whose outputs are summed
  ValueRank => ZZ
    the rank b of each value matrix, V = O U (null: V free)
  Causal => Boolean
    the causal mask: token j attends to tokens i <= j only
  Residual => Boolean
    a skip connection (d = d'); it translates the image, so the coordinates, taken from the
    attention part, and the closure are those without it
Outputs
  F:RingMap
    from the reduced coordinates y_i to the weights
Description
  Text
    The layer maps tokens X (a d x t matrix) to Y = V X (X^T A X), A = Q^T K.  Every coefficient
    of every entry of Y, as a polynomial in X, is a polynomial in the weights; their linear span
    has a basis of some of them, the reduced coordinates y_i, in the order the entries and their
    monomials come.  For a >= d the weights are the entries of A (a free d x d matrix) and V;
    for a < d those of Q, K and V.  The closure of the image (the neuromanifold) is the kernel of F.
    The y_i are graded by their degree in the weights (2 or 3), which keeps the map homogeneous;
    @TO imageInfo@ reports dimension and degree in the standard grading.
  Example
    F = lightningParametrization(2, 1, 2, 2);
    I = implicitEquations F
    imageInfo I
  Text
    The Python package m2bridge builds the same map with the paper's variants (several heads,
    value ranks, causal masks, skip connections) and chooses the reduced coordinates its own way.
///

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

doc ///
Key
  idealThroughDegree
  (idealThroughDegree, RingMap, ZZ)
Headline
  the ideal of the closure of the image degree by degree, by linear algebra
Usage
  (hf, gens) = toSequence idealThroughDegree(F, K)
Inputs
  F:RingMap
    from the coordinate ring R to the weights S
  K:ZZ
    the largest degree (standard grading of R)
Outputs
  :List
    \{the Hilbert function of R/I in degrees 0..K, the minimal generators of I of degree at most K\}
Description
  Text
    A combination of the degree-k monomials of R lies in the ideal I of the closure exactly when its
    image under F is zero: the degree-k part of I is the kernel of a matrix of coefficients. The new
    minimal generators of degree k are kernel vectors outside the degree-k part of the ideal of the
    lower ones. Nothing says there are no generators above K; see @TO completenessCheck@. m2bridge
    does the same computation with python-flint, one weight block of the torus grading at a time
    (m2bridge implicit --max-degree K).
  Example
    S = QQ[a_1..a_4, v_1, v_2];
    R = QQ[y_1..y_6];
    F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
    idealThroughDegree(F, 4)
///

doc ///
Key
  isUnmixed
  (isUnmixed, Ideal)
Headline
  whether every associated prime has the codimension of the ideal
Usage
  isUnmixed I
Inputs
  I:Ideal
Outputs
  :Boolean
Description
  Text
    By Eisenbud-Huneke-Vasconcelos, the associated primes of codimension i of R/I are among those of
    Ext^i(R/I, R); so I is unmixed when Ext^i(R/I, R) has codimension larger than i for every i above
    codim I. This needs a free resolution and can be slow.
  Example
    R = QQ[x, y, z];
    isUnmixed ideal(x*y, x*z)
    isUnmixed ideal(x)
///

doc ///
Key
  projectionDegree
  (projectionDegree, RingMap, ZZ, List)
Headline
  degree of a linear projection of a Segre variety, with the checks that make it birational
Usage
  projectionDegree(F, m, point)
Inputs
  F:RingMap
    every image bilinear in the first m variables of the target and in the others
  m:ZZ
  point:List
    a point of the target's affine space (rational numbers)
Outputs
  :List
    \{degree of the Segre variety, dimension of its affine cone, no base points, the fiber of the
    image of the point is one reduced point\}
Description
  Text
    When the last two are true, the projection is finite (no base points) and birational (fiber length
    is upper semicontinuous for finite maps, and it is one at the given point), so the closure of the
    image has the Segre variety's degree and dimension.
  Example
    S = QQ[a_1..a_4, v_1, v_2];
    R = QQ[y_1..y_6];
    F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
    projectionDegree(F, 4, {1, 2, 3, 5, 7, 11})
///

doc ///
Key
  completenessCheck
  (completenessCheck, Ideal, RingMap, ZZ, ZZ)
Headline
  whether an ideal of equations is the whole ideal of the closure of the image
Usage
  completenessCheck(J, F, dimension, degree)
Inputs
  J:Ideal
    in the source of F
  F:RingMap
  dimension:ZZ
    the affine dimension of the closure of the image
  degree:ZZ
    its degree
Outputs
  :List
    \{J vanishes on the image, dim J, degree J, J is the ideal of the closure\}
Description
  Text
    The closure's ideal P is prime. If J lies in P and has P's dimension and degree, then P is the
    only associated prime of J of that dimension, with multiplicity one; if J is moreover unmixed
    (@TO isUnmixed@), J = P. Equal dimension and degree alone are not enough: an embedded component
    changes neither.
  Example
    S = QQ[a_1..a_4, v_1, v_2];
    R = QQ[y_1..y_6];
    F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
    gs = last idealThroughDegree(F, 4);
    completenessCheck(ideal gs, F, 5, 4)
    completenessCheck(ideal(gs_0) * ideal vars R, F, 5, 4)
///

doc ///
Key
  distanceCritical
  (distanceCritical, Ideal, Matrix, List)
  RandomMinor
  [distanceCritical, RandomMinor]
Headline
  critical points of a squared distance on the smooth part of a variety
Usage
  C = distanceCritical(I, G, u)
Inputs
  I:Ideal
    the ideal of a variety X in the coordinates y
  G:Matrix
    a symmetric matrix: the inner product
  u:List
    the data point
  RandomMinor => Boolean
    saturate by one random maximal minor of the Jacobian (default) instead of all of them
Outputs
  C:Ideal
    the smooth points y of X where G (y - u) is normal to X; for generic u its degree is the Euclidean
    distance degree of X for G
Description
  Text
    Lagrange multipliers for every generator, eliminated; then the singular locus is saturated away.
  Example
    R = QQ[y_1..y_4];
    C = distanceCritical(minors(2, genericMatrix(R, 2, 2)), id_(QQ^4), {1, 2, 3, 5});
    degree C
///

doc ///
Key
  weightCritical
  (weightCritical, RingMap, Matrix, List)
Headline
  critical points of a squared distance in weight space, on the chart where the first weight is 1
Usage
  C = weightCritical(F, G, u)
Inputs
  F:RingMap
    a parametrization R -> S whose generic fiber is the scaling of the first weight
  G:Matrix
  u:List
Outputs
  C:Ideal
    in the weights without the first; its degree equals that of distanceCritical when F is birational
    onto its image up to that scaling
Description
  Example
    S = QQ[a_1, a_2, b_1, b_2];
    R = QQ[y_1..y_4];
    F = map(S, R, {a_1*b_1, a_1*b_2, a_2*b_1, a_2*b_2});
    degree weightCritical(F, id_(QQ^4), {1, 2, 3, 5})
///

doc ///
Key
  multiplicationMatrices
  (multiplicationMatrices, Ideal)
Headline
  a basis of R/C and the multiplication matrices of the variables, for a zero-dimensional ideal
Usage
  multiplicationMatrices C
Inputs
  C:Ideal
Outputs
  :List
    \{basis monomials, list of matrices\}
Description
  Text
    The transposed matrices have the evaluation vectors (b(p))_b of the points p of C as common
    eigenvectors, with eigenvalues the coordinates of p.
  Example
    R = QQ[x, y];
    multiplicationMatrices ideal(x^2 - 1, y - 2)
///

doc ///
Key
  weightCriticalSystem
  (weightCriticalSystem, RingMap, Matrix, List)
  [weightCriticalSystem, Chart]
  Chart
Headline
  the weight-space critical points of a squared distance, with the parametrization's critical weights removed by a new variable
Usage
  L = weightCriticalSystem(F, G, u)
Inputs
  F:RingMap
    a parametrization R -> S whose generic fiber meets the chart in finitely many points
  G:Matrix
  u:List
  Chart => List
    the positions (counted from 0) of the weights set to 1, default the first: one for each scaling of the generic fiber
Outputs
  L:Ideal
    in kk[x_1..x_m, z] (x the other weights, in order): the gradient of the loss on the chart, and
    z * det(J R) - 1 for a random R; it has the degree of weightCritical, and F4 computes it fast over a finite field.
    Its degree is the number of critical points times the number of chart points in a generic fiber (see chartFiber)
Description
  Example
    S = ZZ/32003[a_1, a_2, b_1, b_2];
    R = ZZ/32003[y_1..y_4];
    F = map(S, R, {a_1*b_1, a_1*b_2, a_2*b_1, a_2*b_2});
    degree ideal leadTerm groebnerBasis(weightCriticalSystem(F, id_((ZZ/32003)^4), {1, 2, 3, 5}), Strategy => "F4")
///

doc ///
Key
  chartLocalization
  (chartLocalization, Ideal, RingMap)
  [chartLocalization, Chart]
  [chartLocalization, ChartValues]
  [chartLocalization, MaxDenominatorDegree]
  [chartLocalization, MaxCommonSize]
  [chartLocalization, Verbose]
  MaxDenominatorDegree
  MaxCommonSize
Headline
  whether equations of the closure generate its ideal, through the inverse of a birational chart
Usage
  L = chartLocalization(J, F)
Inputs
  J:Ideal
    homogeneous, over a finite field, in as many variables as F's source: equations of the closure of the image of F
    (checked: they must vanish on the chart)
  F:RingMap
    a parametrization R -> S whose target is graded so that each coordinate is homogeneous
  Chart => List
    the positions (counted from 0) of the weights fixed; the chart must be birational onto the image
  ChartValues => List
    their values (null: all 1)
  MaxDenominatorDegree => ZZ
    the largest degree of a denominator looked for
  MaxCommonSize => ZZ
    one denominator for all the weights is looked for only where its numerators span at most this many forms
  Verbose => Boolean
    print each step's time on stderr
Outputs
  L:List
    \{true or false, what was found or which step failed, the denominators h, the seconds of the three steps\}
Description
  Text
    Each free weight x_j of the chart is written as g_j/h_j with forms g_j, h_j in R (linear algebra in the grading
    the chart keeps). If every coordinate y_i equals c_i(g/h) modulo J (the denominators cleared, it reduces to 0 by
    J's Groebner basis) and every h_j is a nonzerodivisor modulo J (R/(J + h_j) has the Hilbert series (1 - t^e)
    HS(R/J), which bounds it from below and equals it exactly when J : h_j = J), then J is the kernel P' of the
    chart's pull-back: with h the product of the denominators, R_h/J_h is generated by the g_j/h_j, which map to the
    algebraically independent free weights in R_h/P'_h, so J : h^oo = P', and J is saturated. Unlike the Cohen-
    Macaulay test, it applies to closures that are not Cohen-Macaulay. Over QQ, with J generated by integer
    equations and its reduction J_p passing the test: HF(R/P) <= HF(R/J) <= HF(R/J_p) = HF(R/P'_p) <= HF(R/P) in
    every degree (ranks mod p are at most ranks over QQ), so J is the closure's prime ideal P; m2bridge implicit
    --certify uses it so. A false answer proves nothing.
  Example
    S = QQ[a_1..a_4, v_1, v_2, Degrees => {4:{1, 0}, 2:{0, 1}}];
    R = QQ[y_1..y_6];
    F = map(S, R, {a_1*v_1, a_1*v_2 + a_2*v_1, a_2*v_2, a_3*v_1, a_3*v_2 + a_4*v_1, a_4*v_2});
    Rp = ZZ/32003[y_1..y_6];
    chartLocalization(sub(implicitEquations F, vars Rp), F, Chart => {4})
///

doc ///
Key
  chartFiber
  (chartFiber, RingMap)
  [chartFiber, Chart]
  [chartFiber, ChartValues]
  ChartValues
Headline
  the points of a chart of the weights in a generic fiber of a parametrization
Usage
  L = chartFiber F
Inputs
  F:RingMap
    a parametrization R -> S
  Chart => List
    the positions (counted from 0) of the weights fixed
  ChartValues => List
    their values (null: all 1); random values keep the chart generic where 1 is special (a matrix of ones has rank 1)
Outputs
  L:Ideal
    in kk[x_1..x_m] (x the other weights, in order): F equal to its value at a random point of the chart; its degree is the number of chart
    points in a generic fiber, by which the degree of weightCriticalSystem or chartDegree is divided to count
    functions.  Critical weights need not be removed: a generic fiber has none in characteristic 0
Description
  Example
    S = ZZ/32003[a_1, a_2, b_1, b_2];
    R = ZZ/32003[y_1..y_4];
    F = map(S, R, {a_1*b_1, a_1*b_2, a_2*b_1, a_2*b_2});
    P = map(S, R, {a_1^2*b_1, a_1^2*b_2, a_1*a_2*b_1, a_1*a_2*b_2});
    degree chartFiber F
    degree chartFiber(P, Chart => {2})
    degree chartFiber(P, Chart => {2}, ChartValues => {5})
///

doc ///
Key
  chartDegree
  (chartDegree, RingMap)
  [chartDegree, Chart]
  [chartDegree, ChartValues]
Headline
  the degree of the closure of a parametrization's image, times the chart points in a generic fiber
Usage
  L = chartDegree F
Inputs
  F:RingMap
    a parametrization R -> S whose free weights (those not in the chart) map generically finitely onto the image
  Chart => List
    the positions (counted from 0) of the weights fixed
  ChartValues => List
    their values (null: all 1)
Outputs
  L:Ideal
    in kk[x_1..x_m] (x the other weights, in order): F on a random affine linear space of codimension the number of free weights.  A
    generic such space meets the closure in degree-many points, all in the image of the chart and with generic
    fibers, so the degree of L is the closure's degree times the degree of chartFiber (same chart and values).  L
    must have dimension 0: a positive dimension means the chart's weights do not map finitely
Description
  Text
    The Segre variety of 2 x 2 matrices of rank 1 has degree 2: from its parametrization by a b^T, and from one
    by a_1 a b^T, whose chart b_1 = 3 meets a generic fiber in two points (a_1 up to sign):
  Example
    S = ZZ/32003[a_1, a_2, b_1, b_2];
    R = ZZ/32003[y_1..y_4];
    F = map(S, R, {a_1*b_1, a_1*b_2, a_2*b_1, a_2*b_2});
    degree chartDegree F
    P = map(S, R, {a_1^2*b_1, a_1^2*b_2, a_1*a_2*b_1, a_1*a_2*b_2});
    (degree chartDegree(P, Chart => {2}, ChartValues => {3})) / (degree chartFiber(P, Chart => {2}, ChartValues => {3}))
///

doc ///
Key
  profileCritical
  (profileCritical, Matrix, Matrix, List)
Headline
  the critical points of a squared loss on a model linear in some weights, the best such weights solved in closed form
Usage
  L = profileCritical(M, G, u)
Inputs
  M:Matrix
    n x k, of linear forms in the other weights v: the model is c = M(v) a
  G:Matrix
    a symmetric n x n matrix: the inner product
  u:List
    the target point, n entries
Outputs
  L:Ideal
    in a new ring kk[w, z]: the critical points of det K / det H (the least loss for fixed v, a ratio of two forms
    in v of the same degree) on a random affine chart of the projective space of v, with z det H = 1.  When the
    model is birational onto its image up to the scaling of v, its degree is the number of critical points of the
    loss on the smooth part of the image's closure, for generic u
Description
  Text
    For one attention layer with the attention-matrix form, a = the entries of A and v = those of V: for d = 3,
    d' = 1 this leaves two unknowns instead of eleven.
  Example
    kk = ZZ/32003;
    S = kk[b_1, b_2];
    M = matrix{{b_1, 0}, {b_2, 0}, {0, b_1}, {0, b_2}};
    degree ideal leadTerm groebnerBasis(profileCritical(M, id_(kk^4), {1, 2, 3, 5}), Strategy => "F4")
///

doc ///
Key
  hypersurfaceCritical
  (hypersurfaceCritical, RingElement, Matrix, List)
Headline
  the Lagrange system of a squared distance on a hypersurface
Usage
  L = hypersurfaceCritical(g, G, u)
Inputs
  g:RingElement
    the equation of a hypersurface in the coordinates y
  G:Matrix
    a symmetric matrix: the inner product
  u:List
    a point not on the hypersurface
Outputs
  L:Ideal
    in a new ring kk[lam, y]: g and G (y - u) - lam grad g.  Every solution is a critical point on the
    smooth part (grad g = 0 would force y = u), so for generic u its degree is the Euclidean distance
    degree of the hypersurface for G
Description
  Text
    Over a finite field, F4 counts the solutions fastest.
  Example
    R = ZZ/32003[y_1..y_3];
    L = hypersurfaceCritical(y_1^3 + y_2^3 + y_3^3 - y_1*y_2*y_3, id_(R^3), {1, 2, 3});
    degree ideal leadTerm groebnerBasis(L, Strategy => "F4")
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

end--
