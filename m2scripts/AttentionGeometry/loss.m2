-- AttentionGeometry: the loss's gradient in the weights and its critical points on the parametrization's critical locus.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

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
