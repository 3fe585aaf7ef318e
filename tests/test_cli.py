"""The command line, as a user runs it."""

import json
import subprocess
import sys


def run(*args, check=True):
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True, timeout=600)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_implicit_json(m2, tmp_path):
    script = tmp_path / "s.m2"
    data = json.loads(run("implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--json",
                          "--m2-script", str(script)).stdout)
    assert data["dimension"] == 5 and data["degree"] == 4 and data["ambient_dimension"] == 6
    assert data["generator_degrees"] == [4] and script.read_text().startswith("-- needs the Macaulay2 package AttentionGeometry")


def test_dim_json_keys():
    data = json.loads(run("dim", "--dims", "3,3,3", "--ranks", "2,2", "--tokens", "2", "--method", "numeric",
                          "--json").stdout)
    for key in ("dimension", "method", "parameters", "seed", "seconds", "certificate", "formula", "formula_applies"):
        assert key in data
    assert data["dimension"] == data["formula"]


def test_formula_method_computes_nothing():
    data = json.loads(run("dim", "--dims", "2,1", "--ranks", "1", "--tokens", "2", "--method", "formula",
                          "--json").stdout)
    assert data["dimension"] is None and data["formula"] == 1 * (2 * 2 - 1) + 2 * 1 - 1  # Cor. 3.3 by hand


def test_bad_input_is_a_clear_error():
    out = run("dim", "--dims", "2,1", "--ranks", "1,1", "--tokens", "2", check=False)
    assert out.returncode == 2 and "one rank per layer" in out.stderr
    out = run("implicit", "--dims", "3,2", "--ranks", "3", "--tokens", "2", check=False)
    assert out.returncode == 2 and "numeric" in out.stderr


def test_compare_grid_and_cache(tmp_path):
    args = ("compare", "--dims", "2,2,2", "--ranks", "1:2,1:2", "--tokens", "2", "--json", "--cache-dir", str(tmp_path))
    rows = json.loads(run(*args).stdout)["rows"]
    assert len(rows) == 4 and all("numeric" in r and "formula" in r for r in rows)
    assert len(list(tmp_path.glob("*.json"))) == 4
    assert json.loads(run(*args).stdout)["rows"] == rows


def test_figure3_agrees(tmp_path):
    rows = json.loads(run("figure3", "--out", str(tmp_path), "--json", "--lightning").stdout)["rows"]
    assert [r["delta"] for r in rows] == list(range(3, 11))
    assert all(r["estimated"] == r["expected"] for r in rows)
    assert all(r["lightning_estimated"] == r["lightning_expected"] for r in rows)
    assert (tmp_path / "figure3.png").stat().st_size > 1000


def test_paper_report(m2, tmp_path):
    run("paper", "--out", str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    for claim in ("Corollary 3.3", "Theorem 3.2", "Theorem 3.4", "Eq. 14", "Theorem 3.9", "Eq. 16", "Figure 1"):
        assert claim in text
    assert "**Findings**" in text and "dims [2, 2, 2] ranks [1, 2]: computed 8, Eq. 14 gives 9" in text
    for d, e in ((2, 2), (2, 3), (2, 4), (3, 1)):  # Thm. 3.4: the rank-one locus has dimension d' + 3d - 3
        assert (f"lightning dims={d},{e} ranks={d} t=2: the singular locus (1 component(s), proved) equals the rank-one "
                f"locus (dim {e + 3 * d - 3},") in text
        # its real boundary: A = u w^T, V = c u^T, (u, w, c) up to two scalings
        assert (f"relative boundary of the real neuromanifold: the functions of A = u w^T, V = c u^T "
                f"(dim {2 * d + e - 2}, degree ") in text
    assert text.count("), verified: 4 real functions of conjugate weights near it have no real weights") == 6  # and (2,1), causal (2,1)
    assert (tmp_path / "report.html").read_text().count("<table>") == 10
    assert "Beyond the paper: several heads" in text and "head shift" in text
    assert "Transformer blocks" in text and "Alexander-Hirschowitz" in text and "degree 64" in text
    assert "Training: the loss on the neuromanifold" in text and "exact: 2 primes agree" in text
    training = text[text.index("## Training"):]
    assert "| 2 | 1 | 2 | 6 | 5 | 14 (exact) | 14 (exact) |" in training  # Lagrange gives 14 too (test_exact_counts)
    assert "| 3 | 1 | 2 | 18 |" in training
    robust = text[text.index("## Robustness"):]
    assert "| 2 | 1 | 2 | 1 | 4 | 1, 2 | 3 | 21 |" in robust  # rank-one A, d' = 1: plane + quadric, 1 + 2
    assert "radius" in robust and "certified" in robust and (tmp_path / "robust_discriminant.png").is_file()
    assert (tmp_path / "figure1.png").is_file() and (tmp_path / "figure3.png").is_file()


def test_doctor(m2):
    out = run("doctor")
    assert "AttentionGeometry" in out.stdout


def test_implicit_max_degree_is_truncated_and_says_so():
    out = run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--max-degree", "4")
    assert out.returncode == 0 and "truncated at degree 4" in out.stdout and "5 of degree 2, 10 of degree 4" in out.stdout
    data = json.loads(run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--max-degree", "3",
                          "--json").stdout)
    assert data["complete"] is False and data["max_degree"] == 3 and data["generator_degrees"] == {"2": 5}
    assert data["hilbert_function"][:2] == [1, 12]


def test_figure3_text_never_reads_a_lower_bound_as_a_verdict(tmp_path):
    # one starting sample: delta 9 and 10 stay below Eq. 16 after the doublings; the text must say the
    # estimate is not certain instead of DISAGREE (and the JSON says the same through "certain")
    out = run("figure3", "--samples", "1", "--out", str(tmp_path))
    assert out.returncode == 0 and "DISAGREE" not in out.stdout
    uncertain = [line for line in out.stdout.splitlines() if "NOT CERTAIN (lower bound only" in line]
    assert uncertain and all(line.startswith(("delta= 9", "delta=10")) for line in uncertain)
    rows = json.loads(run("figure3", "--samples", "1", "--json").stdout)["rows"]
    assert [r["delta"] for r in rows if not r["certain"]] == [9, 10]


def test_closed_pipe_is_not_a_traceback():
    # the reader closes the pipe before m2bridge writes (as `| head` does): exit quietly, no traceback
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "m2bridge.cli", "figure3", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.wait(timeout=120) == 0 and "Traceback" not in err and "BrokenPipe" not in err


def test_implicit_linear_engine_from_the_command_line(m2, tmp_path):
    # complete and certified, generators written as an M2 file that Macaulay2 loads
    gens = tmp_path / "gens.m2"
    out = run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--algorithm", "linear",
              "--generators-out", str(gens), "--json")
    data = json.loads(out.stdout)
    assert data["complete"] is True and data["certificate"] == "complete"
    assert data["dimension"]["value"] == 7 and data["degree"]["value"] == 20
    assert "elimination" in " ".join(data["completeness"])
    m2.eval(f'load "{gens}";')
    assert m2.to_python("numgens I") == 15
    # truncated: the dimension and degree are certified, completeness is not claimed
    data = json.loads(run("implicit", "--dims", "2,3", "--ranks", "2", "--tokens", "2", "--max-degree", "3",
                          "--json").stdout)
    assert data["complete"] is False and data["certificate"] == "truncated at degree 3"
    assert data["degree"]["value"] == 56 and "Segre" in data["degree"]["method"]


def test_implicit_engine_bad_paths_time_limits_and_size_check(tmp_path):
    # an unwritable --generators-out is refused before any computation
    out = run("implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--max-degree", "3",
              "--generators-out", str(tmp_path / "missing" / "g.m2"), check=False)
    assert out.returncode == 2 and "does not exist" in out.stderr and "Traceback" not in out.stderr
    # a certificate asked for where it cannot be given: one message naming the conflict
    out = run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--algorithm", "linear", "--field",
              "ZZ/101", check=False)
    assert out.returncode == 2 and "--field ZZ/101" in out.stderr and "Traceback" not in out.stderr
    out = run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--last-degree-mod-p", check=False)
    assert out.returncode == 2 and "--max-degree K" in out.stderr and "Traceback" not in out.stderr
    # a time limit keeps the degrees already done, says so, exits 2
    out = run("implicit", "--dims", "3,2", "--ranks", "3", "--tokens", "2", "--max-degree", "7", "--timeout", "4",
              "--no-certify", check=False)
    assert out.returncode == 2 and "time limit reached in degree" in out.stderr
    assert "truncated at degree" in out.stdout and "45 of degree 2" in out.stdout
    # elimination out of reach: the refusal names the degree-by-degree engine, and comes before any computation
    # (no Macaulay2 session, no parametrization: (50,50) was refused after 120 s)
    for dims in ("3,2", "50,50"):
        out = run("implicit", "--dims", dims, "--ranks", dims.split(",")[0], "--tokens", "2", check=False)
        assert out.returncode == 2 and "degree-by-degree engine" in out.stderr and "--max-degree K" in out.stderr


def test_deep_exact_dimension_on_the_command_line_at_every_seed():
    for seed in range(4):
        out = json.loads(run("dim", "--dims", "2,1,1", "--ranks", "2,1", "--tokens", "2", "--method", "exact",
                             "--seed", str(seed), "--json").stdout)
        assert (out["dimension"], out["certificate"], out["seed"]) == (5, "certified maximal", seed)
    out = json.loads(run("dim", "--dims", "3,3,3", "--ranks", "1,2", "--tokens", "2", "--method", "exact",
                         "--json").stdout)
    assert (out["dimension"], out["certain"], out["points_tried"]) == (18, False, 4)
