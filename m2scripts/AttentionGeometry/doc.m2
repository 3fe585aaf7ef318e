-- AttentionGeometry: the documentation nodes (doc).
-- Loaded by ../AttentionGeometry.m2 after beginDocumentation(), with AuxiliaryFiles => true.

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
  [singularComponents, Strategy]
  [singularComponents, Verbose]
  [singularComponents, Candidates]
  [singularComponents, KnownPoint]
  Candidates
  KnownPoint
Headline
  the irreducible components of the singular locus of a prime ideal's variety
Usage
  singularComponents I
Inputs
  I:Ideal
    prime, of codimension c
  Strategy => String
    Refine (the default) or AllMinors (every c x c minor at once, the textbook route)
  Verbose => Boolean
    report each refinement on stderr
  Candidates => List
    primes to test first: those inside the singular locus are kept and saturated away from every refinement
  KnownPoint => Matrix
    a point of V(I) (1 x n over the coefficient field, or a list), e.g. the image of random weights: the first
    generators are chosen by their rank there, which is cheap, instead of over the fraction field of R/I
Outputs
  :List
    of prime ideals: the components of the singular locus (none inside another)
Description
  Text
    Every c x c minor of the Jacobian lies in the ideal of the singular locus, so adding the minors of any c
    generators keeps every singular point.  A prime P is kept when the Jacobian has rank less than c over the
    fraction field of R/P (see @TO singularRank@); otherwise c generators independent there cut V(P) down.
  Example
    R = QQ[x,y,z];
    singularComponents ideal(x^2 - y^2*z)
///

doc ///
Key
  singularByProjection
  (singularByProjection, Ideal, Ring, Matrix)
  [singularByProjection, Verbose]
Headline
  the singular locus of a finite birational projection of a cone that is smooth off its vertex
Usage
  singularByProjection(J, R1, pt)
Inputs
  J:Ideal
    of the cone Y (for one attention layer: the 2 x 2 minors of vec(A) vec(V)^T in coordinates y and w), prime,
    normal and smooth off its vertex
  R1:Ring
    the polynomial ring of the coordinates y of the image (its variables are variables of the ring of J)
  pt:Matrix
    a point of the image X (1 x n over the coefficient field), e.g. the image of random weights
Outputs
  :List
    of prime ideals in R1: the components of the singular locus of X; null when the projection is not finite
    (its fiber over the vertex is not a point) or not birational (the fiber over pt is not one reduced point)
Description
  Text
    Where the projection is finite and birational, X is smooth exactly where it is an isomorphism onto X: there
    X is locally Y, and where O_Y is not generated by 1 over O_X it is a finite birational extension, so X is
    not normal.  The singular locus is the support of O_Y / O_X (with the vertex, unless X is a linear space),
    computed by pushForward and an annihilator; the ideal of X is not needed.
///

doc ///
Key
  singularByCharts
  (singularByCharts, RingMap)
  [singularByCharts, AllDenominators]
  [singularByCharts, RowCharts]
  [singularByCharts, Charts]
  [singularByCharts, Verbose]
  RowCharts
  Charts
Headline
  the singular locus of one attention layer through inverse charts, without the ideal of its closure
Usage
  singularByCharts F
Inputs
  F:RingMap
    the parametrization of one lightning attention layer (one head, at least two tokens) in the attention-matrix
    form: weights A_(i,j) and V_(o,r)
  AllDenominators => ZZ
    the degrees of denominators collected per chart (from the least one); 0: only the one the search picks
  RowCharts => Boolean
    charts of A on the first output row (a layer of output width 1), each row of V then solved from its coordinates
    (L_A V_o = y_o, L_A injective for A nonzero, checked), instead of charts of the weights on all coordinates
  Charts => List
    the positions of the weights fixed, one chart each (null: the first weight of A and the first of V; with RowCharts
    the first two weights of A)
  Verbose => Boolean
    print each step on stderr
Outputs
  :List
    \{true, a description, the charts, the denominators\} when the singular locus of the closure
    X is proved to be the image of the weights with rank A <= 1 and rank V <= 1; \{false, why, ...\} when a step
    fails
Description
  Text
    X is the image of the cone Y over the Segre variety of A (x) V (smooth off its vertex) under a linear
    projection. The function checks the projection finite (the functions vanish only where A = 0 or V = 0). For each
    chart (one weight fixed at 1) chartFractions writes the other weights as g/h on X; where h does not vanish, the
    fiber is one point given by regular functions, so X is isomorphic to Y there and smooth. The layer's symmetry
    s(A, V) = (g^T A g, k V g) acts on X linearly (checked), so the zeros of h moved by any s bound the singular
    locus too: it lies in the core of the zeros (the points whose whole orbit is in them). The symmetry group is
    irreducible, so the core of a product is the union of its factors' cores, each computed exactly (the
    coefficients of phi(g^T A g, k V g) in the entries of g and k). On the slices V = [I_r 0] (every orbit meets one)
    the cores of every choice of one factor per chart must lie in A = 0 (r >= 2) or rank A <= 1 (r = 1): then the
    singular locus lies in the image W of the rank-one weights. Conversely (a b^T, c e^T) and (e b^T, c a^T) give the same function (checked
    as an identity), two points of Y in one fiber, so X is not normal along a dense subset of W (a finite
    birational map onto a normal variety is an isomorphism) and W is singular. Over QQ this is a proof of the
    paper's Theorem 3.4 for the layer; over ZZ/p it holds for that prime.
  Example
    -- the layer d = 2, d' = 1, two tokens, as m2bridge builds it (reduced coordinates)
    S = QQ[A_(1,1), A_(1,2), A_(2,1), A_(2,2), V_(1,1), V_(1,2),
        Degrees => {{1,1,0,0}, {1,0,1,0}, {1,1,0,0}, {1,0,1,0}, {1,0,0,1}, {1,0,0,1}}];
    R = QQ[y_1..y_6, Degrees => {{2,0,1,1}, {2,0,1,1}, {2,1,0,1}, {2,1,0,1}, {2,0,1,1}, {2,1,0,1}}];
    F = map(S, R, {A_(2,2)*V_(1,2), A_(1,2)*V_(1,1), A_(2,1)*V_(1,2), A_(1,1)*V_(1,1),
        A_(1,2)*V_(1,2) + A_(2,2)*V_(1,1), A_(1,1)*V_(1,2) + A_(2,1)*V_(1,1)});
    take(singularByCharts F, 2)
SeeAlso
  singularByProjection
  chartFractions
  rankOneLocus
///

doc ///
Key
  chartFractions
  (chartFractions, RingMap)
  [chartFractions, Chart]
  [chartFractions, ChartValues]
  [chartFractions, MaxDenominatorDegree]
  [chartFractions, MaxCommonSize]
  [chartFractions, AllDenominators]
  AllDenominators
Headline
  the inverse of a chart of a parametrization, as fractions of forms on the closure
Usage
  chartFractions F
Inputs
  F:RingMap
    a parametrization R -> S whose target is graded so that each coordinate is homogeneous (any field)
  Chart => List
    the positions (counted from 0) of the weights fixed
  ChartValues => List
    their values (null: all 1)
  MaxDenominatorDegree => ZZ
    the largest degree of a denominator looked for
  MaxCommonSize => ZZ
    one denominator for all the weights is looked for only where its numerators span at most this many forms
  AllDenominators => ZZ
    collect every common denominator of the least degree and of this many - 1 degrees more (0: none)
Outputs
  :HashTable
    with "Fractions" (a pair (g, h) per free weight, null where none was found), "Denominators", "Common" (the
    collected denominators) and the rings and maps of the search
Description
  Text
    The first step of chartLocalization: linear algebra in the grading the chart keeps, no ideal of the closure
    needed. Each pair satisfies g(F) = x h(F) on the chart (checked by chartLocalization and singularByCharts).
SeeAlso
  chartLocalization
  singularByCharts
///

doc ///
Key
  singularRank
  (singularRank, Matrix, Ideal)
Headline
  the rank of a matrix at the generic point of a prime ideal's variety
Usage
  singularRank(J, P)
Inputs
  J:Matrix
  P:Ideal
    prime
Outputs
  :ZZ
    the rank of J over the fraction field of R/P
///

doc ///
Key
  rankOneLocus
  (rankOneLocus, RingMap)
Headline
  the closure of the functions of one attention layer with every weight matrix of rank at most one
Usage
  rankOneLocus F
Inputs
  F:RingMap
    the parametrization from the reduced coordinates to the weights (as from lightningParametrization)
Outputs
  :Ideal
    the kernel of F composed with the substitution of a rank-one matrix (row vector times column vector) for
    each weight matrix: the paper's candidate for the singular locus (Thm. 3.4)
Description
  Example
    F = lightningParametrization(2, 1, 2, 2);
    rankOneLocus F
///

doc ///
Key
  sameVectorLocus
  (sameVectorLocus, RingMap)
Headline
  the functions of one attention layer with A = u b^T and V = c u^T: the relative boundary of its real neuromanifold
Usage
  sameVectorLocus F
Inputs
  F:RingMap
    one lightning attention layer, one head, in the attention-matrix form (weights A_(i,j) and V_(o,j))
Outputs
  :Ideal
    the ideal of the closure of the image of the weights A = u b^T, V = c u^T (the fixed points of the swap
    (a b^T, c e^T) -> (e b^T, c a^T))
Description
  Text
    A real function of the layer has real weights wherever the projection of the Segre cone is injective (off the
    rank-one functions: see singularByCharts). A rank-one function has the two preimages (a b^T, c e^T) and
    (e b^T, c a^T); it has no real weights when they are complex conjugates, a = z and e = conj z. Such functions
    tend to real ones as z becomes real, a = e = u: the real points of this locus are the limits of real functions
    that no real weights give (the paper's Theorem 3.4 states it; conjugateSample checks it at points).
  Example
    S = QQ[A_(1,1), A_(1,2), A_(2,1), A_(2,2), V_(1,1), V_(1,2),
        Degrees => {{1,1,0,0}, {1,0,1,0}, {1,1,0,0}, {1,0,1,0}, {1,0,0,1}, {1,0,0,1}}];
    R = QQ[y_1..y_6, Degrees => {{2,0,1,1}, {2,0,1,1}, {2,1,0,1}, {2,1,0,1}, {2,0,1,1}, {2,1,0,1}}];
    F = map(S, R, {A_(2,2)*V_(1,2), A_(1,2)*V_(1,1), A_(2,1)*V_(1,2), A_(1,1)*V_(1,1),
        A_(1,2)*V_(1,2) + A_(2,2)*V_(1,1), A_(1,1)*V_(1,2) + A_(2,1)*V_(1,1)});
    B = sameVectorLocus F;
    (dim B, numgens B)
    last conjugateSample(F, {{1, 2}, {-1, 3}, {2, -1}, {1}}, 1/10)
    layerRanks(F, {{1, 2, 3, 4, 5, 6}, {1, 2}, {-1, 3}, {1}, {2, 5}})
SeeAlso
  conjugateSample
  layerRanks
  singularByCharts
///

doc ///
Key
  segreRows
  (segreRows, RingMap)
Headline
  whether a layer of value rank one is a Segre product: every output row the same polynomials times O_(o,1)
Usage
  segreRows F
Inputs
  F:RingMap
    one lightning attention layer with V = O U, O a column (weights O_(o,1))
Outputs
  :
    true when every coordinate is O_(o,1) times a polynomial free of O and every output row o gets the same
    polynomials; else a string saying what fails
Description
  Text
    Then the closure is the cone over the Segre product of P^(d'-1) and the closure X1 of those polynomials (a layer
    of output width 1), and its singular locus is P^(d'-1) x Sing X1 with the vertex: m2bridge's singular command
    computes Sing X1 and takes rankOneLocus F when Sing X1 is the rank-one locus.
SeeAlso
  rankOneLocus
  singularByCharts
///

doc ///
Key
  rankOneDegree
  (rankOneDegree, RingMap, List)
Headline
  the dimension and degree of the rank-one locus of one attention layer, without its ideal
Usage
  rankOneDegree(F, pt)
Inputs
  F:RingMap
    one lightning attention layer, one head, in the attention-matrix form
  pt:List
    integers a, b (length d), c (length d'), u (length d), one after another: a point (a b^T, c u^T)
Outputs
  :List
    \{r, fiber dimension, fiber degree, reduced, s\}: the Jacobian's rank of (a, b, c, u) -> F(a b^T, c u^T) at pt
    (the rank-one locus's affine dimension where pt is generic), the fiber through pt normalized on three random
    linear forms, whether that fiber is reduced, and the degree s of the Segre product P^(d-1) x P^(d-1) x P^(d'-1)
    x P^(d-1)
Description
  Text
    The rank-one locus is the image of that Segre product under a linear projection, finite where F vanishes only at
    A = 0 or V = 0 (checked by singularByCharts); so its degree is s divided by the number of points of a generic
    fiber (2: the swap of a and u). This serves where rankOneLocus (a kernel) is too slow, from d = d' = 3 on.
  Example
    S = QQ[A_(1,1), A_(1,2), A_(2,1), A_(2,2), V_(1,1), V_(1,2),
        Degrees => {{1,1,0,0}, {1,0,1,0}, {1,1,0,0}, {1,0,1,0}, {1,0,0,1}, {1,0,0,1}}];
    R = QQ[y_1..y_6, Degrees => {{2,0,1,1}, {2,0,1,1}, {2,1,0,1}, {2,1,0,1}, {2,0,1,1}, {2,1,0,1}}];
    F = map(S, R, {A_(2,2)*V_(1,2), A_(1,2)*V_(1,1), A_(2,1)*V_(1,2), A_(1,1)*V_(1,1),
        A_(1,2)*V_(1,2) + A_(2,2)*V_(1,1), A_(1,1)*V_(1,2) + A_(2,1)*V_(1,1)});
    rankOneDegree(F, {1, -2, 3, 1, 2, 5, -1})
SeeAlso
  rankOneLocus
///

doc ///
Key
  conjugateSample
  (conjugateSample, RingMap, List, QQ)
Headline
  a real function of complex-conjugate weights near the relative boundary, and its fiber
Usage
  conjugateSample(F, {u, v, b, c}, epsilon)
Inputs
  F:RingMap
    one lightning attention layer, one head, in the attention-matrix form, over QQ
  :List
    four lists of integers u, v, b (length d) and c (length d'); z = u + i epsilon v
  epsilon:QQ
Outputs
  :List
    \{f, f0, dim, degree, p\}: the function f of the weights (z b^T, c conj(z)^T) (real: checked), the function f0 of
    (u b^T, c u^T) it tends to, the dimension and degree of the fiber of f scaled to sum A_(i,j)^2 = 1, and the
    coefficients (highest first) of a random linear form's eliminant on that fiber: a real root for every real
    weight that gives f, so none when p has no real root (empty when the fiber is not finite)
SeeAlso
  sameVectorLocus
///

doc ///
Key
  layerRanks
  (layerRanks, RingMap, List)
Headline
  the Jacobian's rank at a weight point, at rank-one weights and at weights A = a b^T, V = c a^T
Usage
  layerRanks(F, {w, a, b, c, e})
Inputs
  F:RingMap
    one lightning attention layer, one head, in the attention-matrix form
  :List
    integer lists: a weight point w, and a, b (length d), c (length d'), e (length d)
Outputs
  :List
    the ranks of the Jacobian of F at w, at (a b^T, c e^T) and at (a b^T, c a^T)
SeeAlso
  sameVectorLocus
///

doc ///
Key
  criticalComponents
  (criticalComponents, RingMap)
  [criticalComponents, GenericRank]
  [criticalComponents, Strategy]
  [criticalComponents, Verbose]
Headline
  where the Jacobian of a parametrization drops rank
Usage
  criticalComponents F
Inputs
  F:RingMap
  GenericRank => ZZ
    the generic rank of the Jacobian (computed when not given)
  Strategy => String
    Refine (the default: as in singularComponents) or AllMinors
  Verbose => Boolean
    report each refinement on stderr
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

doc ///
Key
  coneCritical
  (coneCritical, RingElement, Matrix, List)
Headline
  the Lagrange system on a cone, scaled to lower degree
Usage
  L = coneCritical(g, G, u)
Inputs
  g:RingElement
    a form of degree d >= 2 in the coordinates y
  G:Matrix
    an invertible matrix: the inner product
  u:List
    a point not on the hypersurface
Outputs
  L:Ideal
    in a new ring kk[t, z]: G (t z - u) - grad g(z) and t z^T G z - z^T G u.  A critical point y with
    G (y - u) = lam grad g(y) gives the d - 1 solutions y = t z, lam t^(d-1) = 1; the second equation is g(z) = 0
    by Euler's formula.  A solution with t = 0 is no critical point (it has grad g(z) = -G u); for generic u
    there is none
Description
  Text
    For a cubic its equations are quadrics and one cubic where those of @TO hypersurfaceCritical@ are cubics,
    and a Groebner basis of it may be reached sooner; its degree is d - 1 times the number of critical points.
  Example
    R = ZZ/32003[y_1..y_3];
    L = coneCritical(y_1^3 + y_2^3 + y_3^3 - y_1*y_2*y_3, id_(R^3), {1, 2, 3});
    degree ideal leadTerm groebnerBasis(L, Strategy => "F4")
SeeAlso
  criticalCountingSystem
///

doc ///
Key
  criticalCountingSystem
  (criticalCountingSystem, RingElement, Matrix, List)
Headline
  the system whose degree counts the critical points of a squared distance on a hypersurface
Usage
  (L, k) = criticalCountingSystem(g, G, u)
Inputs
  g:RingElement
  G:Matrix
  u:List
Outputs
  :Sequence
    (L, k): @TO coneCritical@ and d - 1 where g is a form of degree d >= 3, G is invertible, g(u) != 0, the
    characteristic divides neither d nor d - 1, and no solution of L has t = 0 (checked); else
    @TO hypersurfaceCritical@ and 1.  The degree of L is k times the number of critical points
Description
  Example
    R = ZZ/32003[y_1..y_3];
    (L, k) = criticalCountingSystem(y_1^3 + y_2^3 + y_3^3 - y_1*y_2*y_3, id_(R^3), {1, 2, 3});
    k, degree ideal leadTerm groebnerBasis(L, Strategy => "F4")
///
