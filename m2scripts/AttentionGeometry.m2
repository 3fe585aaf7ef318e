newPackage(
    "AttentionGeometry",
    AuxiliaryFiles => true,
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
    "singularByProjection",
    "singularRank",
    "rankOneLocus",
    "Candidates",
    "KnownPoint",
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
    "coneCritical",
    "criticalCountingSystem",
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
    "chartFractions",
    "singularByCharts",
    
    "Charts",
    "MaxDenominatorDegree",
    "MaxCommonSize",
    "AllDenominators",
    "RowCharts",
    "sameVectorLocus",
    "segreRows",
    "rankOneDegree",
    "conjugateSample",
    "layerRanks"
    }

-- The neuromanifold of a network is the image of a ring map F : R -> S
-- (R: reduced coordinates y_i, S: weights).  Python (m2bridge) builds F;
-- a person can build it by hand just as well (see the examples in AttentionGeometry/doc.m2).

-- The code lives in the folder AttentionGeometry/ beside this file, one file per concept (as in
-- Macaulay2's own packages with AuxiliaryFiles => true); "./" is the directory of this file.
load "./AttentionGeometry/parametrization.m2"  -- lightningParametrization
load "./AttentionGeometry/implicitization.m2"  -- implicitEquations, segreImplicitEquations, idealThroughDegree, imageInfo, ...
load "./AttentionGeometry/completeness.m2"     -- isUnmixed, projectionDegree, completenessCheck, chartLocalization
load "./AttentionGeometry/loci.m2"             -- singularComponents, singularRank, rankOneLocus, criticalComponents, fiberComponents
load "./AttentionGeometry/charts.m2"           -- chartFiber, chartDegree (and chartParts, used by weightCriticalSystem)
load "./AttentionGeometry/critical.m2"         -- distanceCritical, weightCritical(System), hypersurfaceCritical, coneCritical, profileCritical, ...
load "./AttentionGeometry/loss.m2"             -- lossGradient, rankOneCritical, lossOnCriticalLocus
load "./AttentionGeometry/boundary.m2"         -- sameVectorLocus, conjugateSample, layerRanks (the real boundary)

beginDocumentation()

load "./AttentionGeometry/doc.m2"
load "./AttentionGeometry/tests.m2"

end--
