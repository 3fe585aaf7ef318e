-- AttentionGeometry: the relative boundary of the real neuromanifold of one layer (paper, Thm. 3.4 and Cor. A.6).
-- Loaded by ../AttentionGeometry.m2.
--
-- One head in the attention-matrix form, weights A_(i,j) (d x d) and V_(o,j) (e x d), at least two tokens.  The real
-- functions with no real weights: where the projection of the Segre cone is injective (off the rank-one functions,
-- singularByCharts) the one preimage of a real function is real, so they are rank-one functions whose two preimages
-- (a b^T, c e^T) and (e b^T, c a^T) are complex conjugates: a = z, e = conj z, b and c real.  Their limits in the
-- real image are where z becomes real, a = e = u: the functions of A = u b^T, V = c u^T, the fixed points of the swap.

-- layerWeights and rankOneWeights (loci.m2) read the layer's weights and build rank-one ones.

sameVectorLocus = method()
sameVectorLocus RingMap := Ideal => F -> (
    lw := layerWeights F;
    if lw === null then error "sameVectorLocus: not one head in the attention-matrix form (weights A_(i,j), V_(o,j))";
    (Av, Vv, d, e) := lw;
    kk := coefficientRing target F;
    x := local x;
    T := kk[x_1..x_(2 * d + e)];
    u := take(gens T, d);
    trim kernel(map(T, target F, rankOneWeights(u, take(gens T, {d, 2 * d - 1}), drop(gens T, 2 * d), u)) * F))

conjugateSample = method()
conjugateSample(RingMap, List, QQ) := List => (F, vectors, epsilon) -> (
    -- vectors = {u, v, b, c}, integers: z = u + i epsilon v
    (u, v, b, c) := toSequence vectors;
    lw := layerWeights F;
    if lw === null then error "conjugateSample: not one head in the attention-matrix form";
    (Av, Vv, d, e) := lw;
    S := target F;
    if coefficientRing S =!= QQ then error "conjugateSample: real points need QQ";
    n := numgens S;
    im := local im;
    C := QQ[im] / ideal(im^2 + 1);
    z := apply(u, v, (p, q) -> p + epsilon * q * C_0);
    zbar := apply(u, v, (p, q) -> p - epsilon * q * C_0);
    images := first entries F.matrix;
    at := pt -> apply(images, f -> sub(f, matrix{apply(pt, w -> sub(w, C))}));
    -- the image of (z b^T, c zbar^T): real (the swap maps it to its conjugate), not assumed: its imaginary part
    -- must vanish
    fz := at rankOneWeights(z, b, c, zbar);
    if any(fz, y -> sub(y, C_0 => 0) != y) then error "conjugateSample: the function is not real (not one layer)";
    f := apply(fz, y -> lift(y, QQ));
    f0 := apply(at rankOneWeights(u, b, c, u), y -> lift(y, QQ));
    -- the fiber, every real weight scaled to sum A_(i,j)^2 = 1 (A != 0 on it, the function being nonzero), then a
    -- random linear form's eliminant: a real point of the fiber gives a real root
    J := ideal apply(images, f, (g, y) -> g - y) + ideal(sum(Av, x -> x^2) - 1);
    w := local w;
    W := QQ[w_1..w_(n + 1)];
    toW := map(W, S, take(gens W, n));
    form := sum(take(gens W, n), x -> (random 97 + 1) * x);
    el := eliminate(take(gens W, n), toW J + ideal(W_n - form));
    if dim J != 0 or numgens el != 1 then return {f, f0, dim J, degree J, {}};
    p := el_0;
    {f, f0, dim J, degree J, apply(reverse toList(0 .. first degree p), k -> coefficient(W_n^k, p))})

layerRanks = method()
layerRanks(RingMap, List) := List => (F, vectors) -> (
    -- the Jacobian's rank of F at a random weight point, at (a b^T, c e^T) and at (u b^T, c u^T), each given as
    -- integers: vectors = {weights, a, b, c, e}
    (pt, a, b, c, e) := toSequence vectors;
    jac := jacobian F.matrix;
    kk := coefficientRing target F;
    rankAt := ws -> rank sub(jac, matrix{apply(ws, x -> sub(x, kk))});
    {rankAt pt, rankAt rankOneWeights(a, b, c, e), rankAt rankOneWeights(a, b, c, a)})

-- The rank-one locus's dimension and degree without its ideal: it is the image of Y = P^(d-1) x P^(d-1) x P^(e-1) x
-- P^(d-1), (a, b, c, u) -> F(a b^T, c u^T), a linear projection of Y's Segre embedding by forms of degree (1,1,1,1)
-- (no base point on Y where F vanishes only at A = 0 or V = 0: singularByCharts's first step).  For a finite map,
-- deg Y = (the map's degree) (deg of the image); deg Y is the multinomial (3d + e - 4)! / ((d-1)!^3 (e-1)!) (the
-- Segre product's degree).  Returns {the Jacobian's rank at pt (the image's affine dimension where pt is generic), the
-- fiber through pt (normalized on three random linear forms: its dimension, degree and whether it is reduced), deg Y}.
rankOneDegree = method()
rankOneDegree(RingMap, List) := List => (F, pt) -> (
    lw := layerWeights F;
    if lw === null then error "rankOneDegree: not one head in the attention-matrix form";
    (Av, Vv, d, e) := lw;
    kk := coefficientRing target F;
    x := local x;
    n := 3 * d + e;
    T := kk[x_1..x_n];
    (a, b, c, u) := (take(gens T, d), take(gens T, {d, 2 * d - 1}), take(gens T, {2 * d, 2 * d + e - 1}),
        drop(gens T, 2 * d + e));
    G := first entries (map(T, target F, rankOneWeights(a, b, c, u)) * F).matrix;
    at := matrix{apply(pt, v -> sub(v, kk))};
    rk := rank sub(jacobian matrix{G}, at);
    form := vs -> sum(vs, v -> (random 97 + 1) * v) - 1;
    J := ideal apply(G, g -> g - sub(g, at)) + ideal(form a, form b, form c);
    -- the normalized point pt and its swap lie on J only after scaling: J is the fiber up to the torus
    fd := dim J;
    {rk, fd, if fd == 0 then degree J else -1, fd == 0 and radical J == J,
        (n - 4)! // (((d - 1)!)^3 * (e - 1)!)})
