-- AttentionGeometry: the closure of the image: its ideal by elimination (kernel, projection of the rank-one
-- matrices) or degree by degree by linear algebra, and its dimension, degree and Hilbert series.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

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
