-- AttentionGeometry: the singular locus of the closure, the critical locus of the parametrization and the fiber of
-- a weight point, as lists of components.
-- Loaded by ../AttentionGeometry.m2 (newPackage with AuxiliaryFiles => true).

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
