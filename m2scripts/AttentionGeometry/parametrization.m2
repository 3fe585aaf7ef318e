-- AttentionGeometry: the parametrization of one lightning self-attention layer, as a ring map from the
-- reduced coordinates to the weights.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

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
