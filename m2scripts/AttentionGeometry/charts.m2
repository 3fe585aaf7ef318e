-- AttentionGeometry: the parametrization on a chart of the weights (some weights fixed): the points of a generic
-- fiber and the closure's degree, counted by degrees of ideals.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

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
