-- AttentionGeometry: the singular locus of the closure, the critical locus of the parametrization and the fiber of
-- a weight point, as lists of components.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

-- The singular locus of V(I), I prime, without every c x c minor of the Jacobian (c = codim I).  Every such minor
-- lies in the ideal of the singular locus, so for any c generators (rows of the Jacobian) V(P + their c x c minors)
-- keeps every singular point of V(P).  A prime P lies in the singular locus exactly when the Jacobian of I has rank
-- < c over the fraction field of R/P (the criterion at P's generic point, exact); otherwise c rows independent
-- there give minors outside P, so V(P + those minors) is smaller than V(P), and its minimal primes are refined in
-- turn.  The primes that pass the criterion are the singular locus (those inside another one dropped): each one
-- singular by the exact criterion, and nothing left out, since only members of the Jacobian ideal were added.
singularRank = method()
singularRank(Matrix, Ideal) := ZZ => (J, P) -> rank sub(J, frac((ring P) / P))

-- c rows of J (one per generator) independent over the fraction field of R/P, lowest degrees first.  With pt, a
-- point of V(P) (a 1 x n matrix over the coefficient field), the rows are first chosen by the rank at pt: rows
-- independent at one point of V(P) are independent at its generic point (a minor nonzero at pt is not in P), and
-- the rank over a field is cheap where the rank over frac(R/P) is not ((3,1): over two minutes for the first prime)
greedyRows = (M, order, c) -> (
    rows := {};
    scan(order, i -> if #rows < c and rank M^(append(rows, i)) == #rows + 1 then rows = append(rows, i));
    rows)
independentRows = (J, degs, P, c, pt) -> (
    order := apply(sort apply(#degs, i -> {degs#i, i}), p -> p#1);
    if pt =!= null then (
        rows := greedyRows(sub(J, pt), order, c);
        if #rows == c then return rows);
    greedyRows(sub(J, frac((ring P) / P)), order, c))

-- the components of {rank J < r} inside V(P0), J a matrix over ring P0 whose rows carry degrees degs: the
-- refinement described above (for the singular locus J is the Jacobian of I, r = codim I, P0 = I)
-- candidates: primes to test first; those where J has rank < r are kept, and every later refinement is saturated by
-- them (what lies inside a kept component needs no further work), which prunes most of the refinement
-- strategy "AllMinors": the minimal primes of P0 plus every r x r minor of J (the textbook route, for comparison)
rankDropComponents = (J, degs, r, P0, candidates, strategy, verbose, point0) -> (
    if strategy === "AllMinors" then (
        every := trim(P0 + minors(r, J));
        if every == 1 then return {};
        return apply(decompose every, trim));
    if strategy =!= "Refine" then error "the strategy must be \"Refine\" or \"AllMinors\"";
    pending := {P0};
    seen := {P0};  -- every prime queued so far: one reached by two paths is refined once ((2,2): 79 s -> 36 s mod p)
    found := select(candidates, Z -> singularRank(J, Z) < r);
    if verbose then stderr << "-- candidates kept: " << apply(found, Z -> (dim Z, degree Z)) << endl;
    while pending =!= {} do (
        P := first pending;
        pending = drop(pending, 1);
        if any(found, Q -> isSubset(Q, P)) then continue;  -- inside a component already found
        rows := independentRows(J, degs, P, r, if P === P0 then point0 else null);
        if #rows < r then (
            if verbose then stderr << "-- kept: dim " << dim P << ", degree " << degree P << endl;
            found = append(found, P);
            continue);
        K := P + minors(r, J^rows);
        -- every refinement saturated ((2,2): 145 s; 263 s saturating the first one only, 430 s never)
        if found =!= {} then K = saturate(K, intersect found);
        if K == 1 then continue;
        parts := minimalPrimes K;
        if verbose then stderr << "-- refined dim " << dim P << " by rows " << rows << ": "
            << apply(parts, Q -> (dim Q, degree Q)) << endl;
        parts = select(parts, Q -> not any(found, Z -> isSubset(Z, Q)) and not any(seen, Q' -> Q' == Q));
        seen = seen | parts;
        pending = pending | parts);
    found = select(found, P -> not any(found, Q -> Q != P and isSubset(Q, P)));
    kept := {};  -- the same prime reached by two paths: keep one
    scan(found, P -> if not any(kept, Q -> Q == P) then kept = append(kept, P));
    apply(kept, trim))

singularComponents = method(Options => {Strategy => "Refine", Verbose => false, Candidates => {}, KnownPoint => null})
singularComponents Ideal := List => o -> I -> (
    if I == 0 then return {};  -- the whole space: smooth
    gs := first entries gens I;
    -- row i: the gradient of the i-th generator
    rankDropComponents(transpose jacobian matrix{gs}, apply(gs, f -> first degree f), codim I, I, o.Candidates,
        o.Strategy, o.Verbose, checkPoint(o.KnownPoint, I)))

-- a point of V(I) as a 1 x n matrix over the coefficient field (given as a list or a matrix), or null; a point off
-- V(I) could pick rows dependent on V(I), whose minors would not cut it down
checkPoint = (pt, I) -> (
    if pt === null then return null;
    R := ring I;
    kk := coefficientRing R;
    m := if instance(pt, Matrix) then pt else matrix{apply(pt, v -> sub(v, kk))};
    if numcols m != numgens R then error("expected a point with ", toString numgens R, " coordinates");
    m = sub(m, kk);
    if sub(gens I, m) != 0 then error "KnownPoint: expected a point of the variety of the ideal";
    m)

-- The singular locus of X, the closure of the image of Y = V(J), the cone over a smooth variety (a Segre variety for
-- one attention layer), under the linear projection to the variables of R1 (which J's ring also has): if the
-- projection is finite (its fiber over the vertex is a point) and birational (the fiber over pt, a point of X, is
-- one reduced point: the fiber's length bounds the generic one from above), then X is smooth exactly where
-- O_X -> O_Y is onto: there the projection is an isomorphism onto a smooth Y (off the vertex); elsewhere O_Y is a
-- finite birational extension of O_X, so X is not normal there.  The singular locus is the support of O_Y / O_X
-- (pushForward, then an annihilator), with the vertex where X is not a linear space.  The ideal of X is not needed
-- (it is the annihilator of O_Y).  Returns null where the projection is not finite or not birational.
singularByProjection = method(Options => {Verbose => false})
singularByProjection(Ideal, Ring, Matrix) := o -> (J, R1, pt) -> (
    ST := ring J;
    kk := coefficientRing ST;
    ys := apply(gens R1, v -> sub(v, ST));
    if dim(J + ideal ys) > 0 then return null;  -- not finite
    -- the fiber over pt: set the y's to pt's coordinates
    others := select(gens ST, v -> not member(v, ys));
    W := kk[others];
    toW := map(W, ST, apply(gens ST, v -> (i := position(ys, u -> u == v);
        if i === null then sub(v, W) else sub(pt_(0, i), W))));
    fiber := toW J;
    if dim fiber != 0 or degree fiber != 1 then return null;  -- not birational (or pt not on X)
    Q := ST / J;
    M := pushForward(map(Q, R1, apply(gens R1, v -> sub(v, Q))), Q^1);
    one := position(degrees M, d -> all(d, x -> x == 0));  -- the generator 1 (the only one of degree 0)
    if one === null then error "singularByProjection: expected the generator 1 of degree 0";
    if o.Verbose then stderr << "-- O_Y: " << numgens M << " generators over O_X" << endl;
    A := ann(M / (R1 * M_one));
    if A != 1 then return apply(minimalPrimes A, trim);
    -- X normal: singular at its vertex only, unless X is a linear space (the linear forms of its ideal ann M)
    I := ann M;
    if all(first entries gens I, g -> first degree g <= 1) then {} else {ideal vars R1})

-- The singular locus of X, the closure of the image of one attention layer F (weights A_(i,j) and V_(o,r), the
-- attention-matrix form, one head), through inverse charts and without the ideal of X.  Y: the cone of A (x) V, smooth
-- off its vertex; X its image under the linear projection pi.
--  1. pi is finite: F's images vanish only where A = 0 or V = 0 (the fiber over the vertex is the vertex; a projection
--     from a center that misses P(Y) is finite).
--  2. Charts (the first weight of A and of V by default, fixed at 1): the other weights are g/h on X (chartFractions;
--     with AllDenominators > 0 every common denominator of the least degree, else the one the search picks; where
--     the weights have denominators of their own, their product).  Where h(x) != 0 the fiber over x is one point,
--     given by regular functions of x: pi is an isomorphism there (its inverse a morphism), onto a smooth Y; so X is
--     smooth off the common zeros of the denominators.  Row charts (RowCharts; by default the first two entries of A
--     on row 1, and for d' >= 3 the first entries of A and of V on rows 1..m, m < d'): the same with a chart of A on
--     the coordinates of the first m output rows alone, each row of V then solved linearly (rowChartDenominators).
--     B: the common zeros of every chart's denominator.
--  3. The layer's symmetry s(A, V) = (g^T A g, k V g) acts on X by linear maps (F o s is a combination of F's
--     coordinates with coefficients polynomial in g and k: checked with g, k symbolic), so X is smooth off every
--     translate of B, and Sing X lies in the core of B: the points whose whole orbit lies in B.  It lies in the
--     rank-one weights {rank A <= 1, rank V <= 1} and {A = 0} and {V = 0}: the group is irreducible, so the core of a
--     chart's zeros is the union of its factors' cores, each exact (the coefficients of phi o s in g and k); every
--     orbit with rank V = r >= 1 meets the slice V = [I_r 0; 0 0], where every choice of one factor per chart must
--     have common cores in A = 0 (r >= 2: an ideal of dimension 0 in A's entries) or rank A <= 1 (r = 1: each 2 x 2
--     minor of A in the radical).  So Sing X lies in W, the image of the rank-one weights.
--  4. W is singular: (a b^T, c e^T) and (e b^T, c a^T) have the same function (checked as an identity), two points of
--     Y in one fiber where a and e are independent, so pi is not an isomorphism over a dense subset of W, and X is not
--     normal there (a finite birational map onto a normal variety is an isomorphism: Zariski); Sing X is closed.
-- Returns {true, a description, the charts, the denominators} when 1-4 hold (then Sing X = W),
-- {false, why, ...} otherwise.
-- the denominators of charts of weights (step 2), pulled back to the weights: each weight of the chart fixed at 1 and
-- every other one g/h on X (chartFractions); the chart's inverse is regular where h does not vanish (each common
-- denominator serves every weight; else each weight has its own and the inverse is regular where their product does
-- not vanish)
weightChartDenominators = (F, charts, all, note) -> (
    S := target F;
    R := source F;
    flatten apply(charts, c -> (
        CF := chartFractions(F, Chart => {c}, AllDenominators => all);
        if any(CF#"Fractions", fr -> fr === null) then return {};
        dens := if all > 0 and #(CF#"Common") > 0 then CF#"Common" else {product unique CF#"Denominators"};
        note("chart " | toString (gens S)#c | ": " | toString(#dens) | " denominators");
        apply(dens, h -> F sub((CF#"toS") h, vars R)))))

-- the denominators of row charts (step 2, RowCharts), pulled back to the weights.  Each coordinate of X is a
-- coordinate of one output row o, bilinear in A and the row V_o: y_o = L_A V_o.  (a) L_A is injective wherever A != 0
-- (its maximal minors vanish only there: checked), so given A every row of V is the unique solution of a linear
-- system, a regular function of (A, y) with A != 0.  (b) The coordinates of rows 1..m are a layer of output width m
-- (the same A, the rows V_1..V_m); a chart there (a weight c fixed at 1) writes every entry of A as g/h in those rows'
-- coordinates (chartFractions on that layer), h the product of the entries' denominators.  So where h != 0 the fiber
-- is one point, (A / c, c V) given by regular functions of y: the same conclusion as a chart of weights, with
-- denominators that do not involve the other rows (those of the weights' charts vanish where the other rows of V do:
-- (3,2) at rank V = 1).  charts: pairs {m, c} (c an index into A, V_1, ..., V_m; a bare c means {1, c}).  Returns the
-- pulled-back h's, or a string saying why there are none.
rowChartDenominators = (F, Av, Vv, d, e, charts, note) -> (
    S := target F;
    R := source F;
    kk := coefficientRing S;
    images := first entries F.matrix;
    rowOf := v -> first last baseName v;
    rows := apply(toList(1 .. e), o -> select(Vv, v -> rowOf v == o));
    coordinates := apply(rows, Vo -> select(#images, i -> isSubset(support images#i, Av | Vo)));
    if sum(coordinates, c -> #c) != #images then return "a coordinate involves two rows of V: not one attention layer";
    injective := apply(rows, coordinates, (Vo, ix) -> (
        L := (jacobian matrix{images_ix})^(apply(Vo, v -> index v));
        saturate(minors(d, L), ideal Av) == ideal 1_S));
    if not all(injective, identity) then
        return "a row of V is not determined by A and its coordinates (L_A not injective off A = 0)";
    note "every row of V is determined by A != 0 and its coordinates";
    -- the layer of the first m rows (same A, the rows V_1 .. V_m), as a ring map of its own
    b' := local b';  -- fresh names: a ring on the weights' own names would rebind them for the caller
    z := local z;
    subLayer := m -> (
        W := Av | flatten take(rows, m);
        ix := flatten take(coordinates, m);
        S1 := kk[b'_1..b'_(#W), Degrees => apply(W, degree)];
        toS1 := map(S1, S, apply(gens S, v -> (i := position(W, u -> u == v); if i === null then 0_S1 else S1_i)));
        R1 := kk[z_1..z_(#ix), Degrees => apply(ix, i -> degree R_i)];
        (map(S1, R1, apply(ix, i -> toS1 images#i)), map(S, S1, W)));
    hw := apply(charts, mc -> (
        (m, c) := if instance(mc, ZZ) then (1, mc) else toSequence mc;
        (F1, back) := subLayer m;
        CF := chartFractions(F1, Chart => {c});
        free := CF#"Free";
        ofA := select(#free, j -> free#j < #Av);  -- A's entries come first
        if any(ofA, j -> (CF#"Fractions")#j === null) then return null;
        h := product unique apply(ofA, j -> last (CF#"Fractions")#j);
        note("chart " | toString (flatten entries back.matrix)#c | " on rows 1.." | toString m | ": degree " |
            toString first degree h);
        back F1 sub((CF#"toS") h, vars source F1)));
    hw = select(hw, h -> h =!= null);
    if #hw == 0 then "no row chart has an inverse of degree <= 3" else hw)

-- A's and V's weights, and d, e; null when F is not one head in the attention-matrix form
layerWeights = F -> (
    S := target F;
    letter := v -> (toString v)_0;
    Av := select(gens S, v -> letter v == "A");
    Vv := select(gens S, v -> letter v == "V");
    if #Av == 0 or #Vv == 0 or #Av + #Vv != numgens S then return null;
    d := #unique apply(Av, v -> first last baseName v);
    e := #Vv // d;
    if d * d != #Av or d * e != #Vv then null else (Av, Vv, d, e))

-- the weights (A, V) = (a b^T, c e^T) as a list in the order of gens S (A's entries first, row by row)
rankOneWeights = (a, b, c, e) -> flatten table(#a, #b, (i, j) -> a#i * b#j) | flatten table(#c, #e, (o, j) -> c#o * e#j)

singularByCharts = method(Options => {AllDenominators => 0, Charts => null, RowCharts => null,
    Verbose => false})
singularByCharts RingMap := List => o -> F -> (
    S := target F;
    R := source F;
    kk := coefficientRing S;
    note := msg -> if o.Verbose then printerr("singularByCharts: " | msg);
    lw := layerWeights F;
    if lw === null then return {false, "not one head in the attention-matrix form"};
    (Av, Vv, d, e) := lw;
    images := first entries F.matrix;
    -- 1.
    if saturate(saturate(ideal images, ideal Av), ideal Vv) != ideal 1_S then
        return {false, "the projection is not finite (a function vanishes with A and V nonzero)"};
    note "finite";
    -- 2.
    charts := if o.Charts =!= null then o.Charts else {0, #Av};
    rowCharts := if o.RowCharts =!= null then o.RowCharts else {{1, 0}, {1, 1}} | flatten apply(toList(2 .. e - 1),
        m -> {{m, 0}, {m, #Av}});
    hw := if #rowCharts == 0 then {} else rowChartDenominators(F, Av, Vv, d, e, rowCharts, note);
    if instance(hw, String) then return {false, hw};
    hw = weightChartDenominators(F, charts, o.AllDenominators, note) | hw;
    if #hw == 0 then return {false, "no chart has an inverse of degree <= 3"};
    -- 3. B = the common zeros of the charts' denominators; X is smooth off B and off every translate s(B), so Sing X
    -- lies in the core of B: the points p with s p in B for every s in the group G = GL_d x GL_e.  G is irreducible,
    -- so where a chart's denominator is a product of factors phi, G = union over phi of {s : phi(s p) = 0} forces one
    -- phi with phi(s p) = 0 for every s: the core of a chart's zeros is the union of its factors' cores, and the core
    -- of B is the intersection over the charts.  A factor's core is exact: phi(g^T A g, k V g) vanishes for every g, k
    -- (a polynomial identity in their entries) exactly where all its coefficients in the entries of g and k vanish.
    -- Every orbit with rank V = r meets the slice V = [I_r 0; 0 0] (A free), so it suffices that on each slice the
    -- cores lie in A = 0 (r >= 2) or rank A <= 1 (r = 1): small computations in the entries of A alone.
    -- the whole group acts linearly on X: F o s, for s with symbolic entries g, k, is a combination of F's coordinates
    -- whose coefficients are polynomials in g and k (each coefficient of a monomial in g, k lies in the span of F)
    span := C -> rank last coefficients matrix{C};
    -- one ring for both: the weights' entries, then g and k with symbolic entries; moveBy Vm: (A, Vm) -> (g^T A g, k Vm g)
    (w', g', k') := (local w', local g', local k');
    H := kk[w'_1..w'_(numgens S), g'_(1, 1)..g'_(d, d), k'_(1, 1)..k'_(e, e)];
    group := drop(gens H, numgens S);
    Hg := transpose genericMatrix(H, H_(numgens S), d, d);
    Hk := transpose genericMatrix(H, H_(numgens S + d * d), e, e);
    moveBy := Vm -> map(H, S, flatten entries (transpose(Hg) * matrix pack(d, take(gens H, #Av)) * Hg) |
        flatten entries (Hk * Vm * Hg), DegreeMap => deg -> {first deg});
    backS := map(S, H, gens S | toList(#group : 0_S), DegreeMap => deg -> prepend(first deg,
        toList(degreeLength S - 1 : 0)));
    moved := flatten apply(images, f -> flatten entries backS last coefficients(
        (moveBy matrix pack(d, take(drop(gens H, #Av), #Vv))) f, Variables => group));
    if span(images | moved) != span images then return {false, "(A, V) -> (g^T A g, k V g) " |
        "does not act linearly on the closure: not one attention layer", #charts + #rowCharts, #hw};
    x := local x;
    SA := kk[x_1..x_(#Av)];
    minA := flatten entries gens minors(2, matrix pack(d, gens SA));
    toSA := map(SA, H, gens SA | toList(numgens H - #Av : 0_SA));
    slice := r -> map(H^e, H^d, (i, j) -> if i == j and i < r then 1 else 0);
    core := (f, r) -> ideal toSA last coefficients((moveBy slice r) f, Variables => group);
    factors := apply(hw, h -> select(apply(toList factor h, p -> p#0), f -> #support f > 0));
    note("factors of the denominators: " | toString apply(factors, fs -> apply(fs, f -> first degree f)));
    -- on the slice of rank r: where a core must lie (A = 0, or rank A <= 1)
    inside := (C, r) -> if r >= 2 then dim C <= 0 else all(minA, m -> saturate(C, m) == ideal 1_SA);
    -- the slices where some choice of one factor per chart has common cores outside (the union over a chart's factors
    -- distributes over the intersection of the charts; factors whose core alone is inside are left out)
    off := select(toList(1 .. min(d, e)), r -> (
        bad := apply(factors, fs -> select(apply(fs, f -> core(f, r)), C -> not inside(C, r)));
        all(bad, b -> #b > 0) and any(fold(bad, {ideal 0_SA}, (choices, b) ->
            flatten apply(choices, C -> apply(b, D -> C + D))), C -> not inside(C, r))));
    if #off > 0 then return {false, "the cores of the charts' denominators leave the rank-one weights on the slices " |
        "V = [I_r 0] of rank " | toString off, #charts + #rowCharts, #hw};
    note "the charts cover X off the rank-one functions";
    -- 4.
    (a, b, c, u) := (local a, local b, local c, local u);
    T := kk[a_1..a_d, b_1..b_d, c_1..c_e, u_1..u_d];
    (va, vb, vc, vu) := (take(gens T, d), take(gens T, {d, 2 * d - 1}), take(gens T, {2 * d, 2 * d + e - 1}),
        drop(gens T, 2 * d + e));
    (m1, m2) := (map(T, S, rankOneWeights(va, vb, vc, vu)), map(T, S, rankOneWeights(vu, vb, vc, va)));
    if m1 F.matrix != m2 F.matrix then
        return {false, "the swap (a b^T, c e^T) -> (e b^T, c a^T) changes the function", #charts + #rowCharts, #hw};
    {true, "Sing X = the image of the weights with rank A <= 1 and rank V <= 1", #charts + #rowCharts, #hw})

-- Value rank one (V = O U, O a column): every coordinate of F is O_(o,1) times a polynomial free of O, and each output
-- row o gets the same polynomials, so the closure is the cone over the Segre product of P^(d'-1) and the closure of
-- those polynomials (a layer of output width 1).  True when F has that form, else a reason.
segreRows = method()
segreRows RingMap := F -> (
    S := target F;
    Os := select(gens S, v -> (toString v)_0 == "O");
    if #Os < 2 then return "fewer than two output rows O_(o,1)";
    if any(Os, v -> #(last baseName v) != 2 or (last baseName v)#1 != 1) then return "O is not one column";
    rows := new MutableHashTable;
    for f in first entries F.matrix do (
        o := select(Os, v -> f % v == 0);
        if #o != 1 then return "a coordinate is not one output row's";
        g := f // o#0;
        if any(Os, v -> degree(v, g) > 0) then return "a coordinate is not linear in O";
        rows#(o#0) = append(if rows#?(o#0) then rows#(o#0) else {}, g));
    lists := apply(Os, v -> if rows#?v then sort rows#v else {});
    if all(lists, l -> l == lists#0) then true else "the output rows have different polynomials")

-- the closure of the image of the functions with rank A <= 1 and rank V <= 1 (paper, Thm. 3.4): F composed with
-- A_h = u_h w_h^T (or Q_h, K_h of rank one) and V_h = c_h e_h^T, for every head h, then the kernel
rankOneLocus = method()
rankOneLocus RingMap := Ideal => F -> (
    S := target F;
    kk := coefficientRing S;
    -- group the weights by matrix (symbol and head): A_(h,i,j) or A_(i,j)
    key := x -> (b := baseName x; if instance(b, IndexedVariable) then (b#0, if #(b#1) === 3 then b#1#0 else 1)
        else (b, 1));
    mats := unique apply(gens S, key);
    fresh := local fresh;
    images := new MutableHashTable;
    Tvars := {};
    scan(mats, m -> (
        ws := select(gens S, x -> key x === m);
        idx := apply(ws, x -> (b := baseName x; i := b#1; if #i === 3 then (i#1, i#2) else i));
        rs := unique apply(idx, i -> i#0);
        cs := unique apply(idx, i -> i#1);
        scan(ws, idx, (x, i) -> images#x = (m, i#0, i#1));
        Tvars = Tvars | apply(rs, r -> (m, "row", r)) | apply(cs, q -> (m, "col", q))));
    T := kk[fresh_1..fresh_(#Tvars)];
    pos := hashTable apply(#Tvars, i -> Tvars#i => T_i);
    sub1 := apply(gens S, x -> (m := images#x; pos#(m#0, "row", m#1) * pos#(m#0, "col", m#2)));
    G := map(T, S, sub1) * F;
    trim kernel G)

criticalComponents = method(Options => {GenericRank => null, Strategy => "Refine", Verbose => false})
criticalComponents RingMap := List => o -> F -> (
    jac := jacobian F.matrix;  -- column i: the gradient of the i-th coordinate
    r := if o.GenericRank =!= null then o.GenericRank else rank jac;
    -- the first prime is the whole weight space: any random point is a point of it
    S := ring jac;
    rankDropComponents(transpose jac, apply(first entries F.matrix, f -> first degree f), r, ideal(0_S), {},
        o.Strategy, o.Verbose, random((coefficientRing S)^1, (coefficientRing S)^(numgens S))))

fiberComponents = method()
fiberComponents(RingMap, List) := List => (F, point) -> (
    S := source F;
    T := target F;
    if #point != numgens T then error("expected ", toString numgens T, " coordinates for the weight point");
    images := first entries F.matrix;
    vals := apply(images, f -> sub(f, matrix{apply(point, v -> sub(v, coefficientRing T))}));
    I := trim ideal apply(images, vals, (f, v) -> f - v);
    apply(decompose I, trim))
