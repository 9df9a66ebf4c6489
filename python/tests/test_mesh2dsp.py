"""The mesh2dsp Python module against the CLI built beside it (CTest sets MESH2DSP_BIN,
MESH2DSP_SOURCE_DIR and PYTHONPATH): the same model files, the same error messages, and a
render that rings at the model's frequencies."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import mesh2dsp

BIN = os.environ["MESH2DSP_BIN"]
SOURCE = pathlib.Path(os.environ["MESH2DSP_SOURCE_DIR"])
BOWL = SOURCE / "meshes" / "bowl.obj"
MODES = 12

mesh2dsp.set_quiet(True)


def cli(*args):
    return subprocess.run([BIN, "-q", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def bowl_cli(tmp_path_factory):
    """The CLI's model of the bundled bowl, written by `mesh2dsp modes`."""
    path = tmp_path_factory.mktemp("cli") / "bowl.modal.json"
    run = cli("modes", BOWL, "--modes", MODES, "--listener", "0,0,0.5", "-o", path)
    assert run.returncode == 0, run.stderr
    return json.loads(path.read_text()), path


@pytest.fixture(scope="module")
def bowl():
    return mesh2dsp.analyze(str(BOWL), modes=MODES, listeners=[(0, 0, 0.5)])


def test_analysis_gives_the_clis_model_file(bowl, bowl_cli, tmp_path):
    expected, _ = bowl_cli
    f = np.array([m["frequency_hz"] for m in expected["modes"]])
    assert bowl.frequencies_hz.shape == (MODES,)
    np.testing.assert_allclose(bowl.frequencies_hz, f, rtol=1e-9)
    np.testing.assert_allclose(bowl.damping_ratios, [m["damping_ratio"] for m in expected["modes"]], rtol=1e-9)
    gains = np.array([e["gains"] for e in expected["excitations"]])
    assert bowl.gains.shape == gains.shape == (8, MODES)
    np.testing.assert_allclose(bowl.gains, gains, rtol=1e-6, atol=1e-9 * np.abs(gains).max())
    np.testing.assert_allclose(bowl.listener_gains, [expected["listeners"][0]["gains"]], rtol=1e-6,
                               atol=1e-9 * np.abs(bowl.listener_gains).max())
    assert bowl.material["name"] == expected["material"]["name"] == "steel"
    assert bowl.name == expected["name"] == "bowl"
    # What the module saves is what the CLI wrote, field for field.
    bowl.save(tmp_path / "bowl.modal.json")
    saved = json.loads((tmp_path / "bowl.modal.json").read_text())
    assert saved.keys() == expected.keys()
    assert saved["mesh"] == expected["mesh"] and saved["analysis"] == expected["analysis"]
    np.testing.assert_allclose([m["eigenvalue"] for m in saved["modes"]],
                               [m["eigenvalue"] for m in expected["modes"]], rtol=1e-9)


def test_surface_shapes_are_numpy_arrays_that_agree_with_the_gains(bowl):
    assert bowl.has_surface
    v, f, s = bowl.surface_vertices, bowl.surface_faces, bowl.surface_shapes
    assert v.shape[1] == 3 and f.shape[1] == 3 and f.max() < v.shape[0]
    assert s.shape == (v.shape[0], 3, MODES)
    # φ·n at every surface vertex is the displacement along the vertex normal.
    along_normal = np.einsum("vcn,vc->vn", s, bowl.surface_normals)
    np.testing.assert_allclose(bowl.surface_gains, along_normal, atol=1e-9 * np.abs(along_normal).max())


def test_load_retune_and_save_match_the_cli(bowl_cli, tmp_path):
    _, path = bowl_cli
    # Listener gains carry each mode's propagation phase: re-tuning E or density is refused, with
    # the CLI's message.
    with pytest.raises(mesh2dsp.Error) as raised:
        mesh2dsp.load(path).retune(material="iron")
    run = cli("modes", path, "--material", "iron", "-o", tmp_path / "refused.modal.json")
    assert run.returncode == 1 and str(raised.value) in run.stderr
    # Without the listener, re-tuning is exact.
    data = json.loads(path.read_text())
    del data["listeners"]
    plain = tmp_path / "plain.modal.json"
    plain.write_text(json.dumps(data))
    model = mesh2dsp.load(plain)
    iron = model.retune(material="iron")
    run = cli("modes", plain, "--material", "iron", "-o", tmp_path / "iron.modal.json")
    assert run.returncode == 0, run.stderr
    expected = json.loads((tmp_path / "iron.modal.json").read_text())
    np.testing.assert_allclose(iron.frequencies_hz, [m["frequency_hz"] for m in expected["modes"]], rtol=1e-12)
    assert iron.material["name"] == expected["material"]["name"]
    # Frequencies scale with sqrt(E/rho); the original is untouched.
    ratio = np.sqrt(iron.material["youngs_modulus"] / iron.material["density"]
                    / (model.material["youngs_modulus"] / model.material["density"]))
    np.testing.assert_allclose(iron.frequencies_hz, ratio * model.frequencies_hz, rtol=1e-9)
    assert model.material["name"] == "steel"
    iron.save(tmp_path / "again.modal.json")
    np.testing.assert_allclose(mesh2dsp.load(tmp_path / "again.modal.json").frequencies_hz, iron.frequencies_hz,
                               rtol=1e-12)


def test_a_surface_in_memory_gives_the_files_modes(bowl):
    vertices, faces = [], []
    for line in BOWL.read_text().splitlines():
        parts = line.split()
        if parts and parts[0] == "v":
            vertices.append([float(x) for x in parts[1:4]])
        elif parts and parts[0] == "f":
            faces.append([int(p.split("/")[0]) - 1 for p in parts[1:4]])
    model = mesh2dsp.analyze((np.array(vertices), np.array(faces)), modes=MODES, name="bowl")
    np.testing.assert_allclose(model.frequencies_hz, bowl.frequencies_hz, rtol=1e-6)


@pytest.mark.parametrize("cli_args, call", [
    (["modes", BOWL, "--material", "unobtainium", "-o", "x.modal.json"],
     lambda: mesh2dsp.analyze(str(BOWL), material="unobtainium")),
    (["modes", "no/such/mesh.obj", "-o", "x.modal.json"], lambda: mesh2dsp.analyze("no/such/mesh.obj")),
    (["modes", BOWL, "--fmin", "5000", "--fmax", "100", "-o", "x.modal.json"],
     lambda: mesh2dsp.analyze(str(BOWL), fmin=5000, fmax=100)),
])
def test_errors_raise_with_the_clis_message(cli_args, call, tmp_path):
    run = subprocess.run([BIN, *map(str, cli_args)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1
    message = run.stderr.strip().splitlines()[-1]
    assert message.startswith("mesh2dsp: error: ")
    with pytest.raises(mesh2dsp.Error) as raised:
        call()
    assert str(raised.value) == message[len("mesh2dsp: error: "):]
    assert not list(tmp_path.iterdir()), "an error left a file behind"


def test_bad_arguments_raise_not_crash():
    with pytest.raises(mesh2dsp.Error, match="element-order"):
        mesh2dsp.analyze(str(BOWL), element_order=4)
    with pytest.raises(mesh2dsp.Error, match="units"):
        mesh2dsp.analyze(str(BOWL), units="furlong")
    with pytest.raises(mesh2dsp.Error, match="face names vertex"):
        mesh2dsp.analyze((np.zeros((3, 3)), np.array([[0, 1, 7]])))
    with pytest.raises(mesh2dsp.Error, match="no surface data"):
        mesh2dsp.load(SOURCE / "tests" / "emit" / "data" / "testbar.modal.json").surface_vertices
    with pytest.raises(mesh2dsp.Error, match="variant"):
        mesh2dsp.emit_faust(mesh2dsp.load(SOURCE / "tests" / "emit" / "data" / "testbar.modal.json"), variant="x")


def test_emitted_code_is_the_clis(bowl_cli, tmp_path):
    _, path = bowl_cli
    model = mesh2dsp.load(path)
    run = cli("generate", path, "--faust", tmp_path / "bowl.dsp", "--cpp", tmp_path / "bowl.hpp", "--no-model-json")
    assert run.returncode == 0, run.stderr
    # Only the two header lines differ: the file's own name and its provenance.
    for text, file in [(mesh2dsp.emit_faust(model), "bowl.dsp"), (mesh2dsp.emit_cpp(model), "bowl.hpp")]:
        written = (tmp_path / file).read_text()
        assert file in written.splitlines()[0] and file not in text.splitlines()[0]
        assert text.splitlines()[2:] == written.splitlines()[2:]


def test_render_rings_at_the_models_frequencies(bowl_cli):
    _, path = bowl_cli
    model = mesh2dsp.load(path)
    audio = mesh2dsp.render(mesh2dsp.emit_faust(model), seconds=1.0, sample_rate=48000, triggers=["gate@0.1"],
                            cache=False)
    assert audio.dtype == np.float32 and audio.ndim == 2 and audio.shape[1] == 48000
    signal = audio[0].astype(float)
    assert np.all(np.isfinite(signal))
    assert np.abs(signal[:4000]).max() == 0.0, "sound before the strike"
    assert np.abs(signal).max() > 1e-4
    spectrum = np.abs(np.fft.rfft(signal[4800:] * np.hanning(len(signal) - 4800)))
    freqs = np.fft.rfftfreq(len(signal) - 4800, 1 / 48000)
    peak_hz = freqs[np.argmax(spectrum)]
    nearest = model.frequencies_hz[np.argmin(np.abs(model.frequencies_hz - peak_hz))]
    assert abs(peak_hz - nearest) < 3.0, (peak_hz, model.frequencies_hz)
    with pytest.raises(mesh2dsp.Error, match="undefined symbol"):
        mesh2dsp.render("process = undefined_thing;", seconds=0.1)


BAR = SOURCE / "meshes" / "bar.obj"


def test_reference_is_the_clis_render(tmp_path):
    """The reference render in memory is the CLI's WAV, sample for sample."""
    kwargs = dict(duration=0.02, listeners=[(0, 0, 0.5)], oversampling=1)
    audio = mesh2dsp.reference(str(BAR), material="steel", **kwargs)
    assert audio.dtype == np.float32 and audio.shape == (1, 960)
    assert np.abs(audio).max() > 0
    run = cli("reference", BAR, "--material", "steel", "--duration", 0.02, "--listener", "0,0,0.5",
              "--oversampling", 1, "-o", tmp_path / "ref.wav")
    assert run.returncode == 0, run.stderr
    sidecar = json.loads((tmp_path / "ref.json").read_text())
    assert sidecar["channels"][0]["peak"] == pytest.approx(float(np.abs(audio).max()), rel=1e-6)
    with pytest.raises(mesh2dsp.Error, match="--duration must be positive"):
        mesh2dsp.reference(str(BAR), duration=-1)


def test_validate_against_theory_gives_the_clis_verdict(tmp_path):
    passed, text = mesh2dsp.validate(mesh=str(BAR), material="steel", analytic=True, report=tmp_path / "report")
    assert passed, text
    assert text.startswith("validate --analytic: PASS")
    assert (tmp_path / "report" / "analytic.json").exists()
    with pytest.raises(mesh2dsp.Error, match="nothing to validate"):
        mesh2dsp.validate(report=tmp_path / "other")


def _strike(frequencies_hz, t60_s, rate=48000, pre_roll_s=0.2, seconds=2.5, seed=1):
    """A synthetic recording: decaying partials after a noisy pre-roll, with DC, at 16-bit steps."""
    t = np.arange(int(seconds * rate)) / rate
    x = np.zeros_like(t)
    after = t >= pre_roll_s
    for f, t60 in zip(frequencies_hz, t60_s):
        x[after] += np.exp(-np.log(1000) / t60 * (t[after] - pre_roll_s)) * np.sin(2 * np.pi * f * (t[after] - pre_roll_s))
    x *= 0.5 / np.abs(x).max()
    x += 0.01 + 0.5 * 10 ** (-50 / 20) * np.random.default_rng(seed).standard_normal(t.size)
    return (np.round(x * 32767) / 32767).astype(np.float32)


def test_fit_recovers_the_scale_and_damping_and_refuses_another_object():
    model = mesh2dsp.load(SOURCE / "generated" / "bowl" / "bowl.modal.json")
    scale, alpha, beta = 1.05, 6.0, 1.5e-8
    f = model.frequencies_hz[:8]
    f = f[np.r_[True, np.diff(f) / f[1:] > 0.01]] * scale  # a degenerate pair rings as one partial
    w = 2 * np.pi * f
    x = _strike(f, np.log(1000) / (alpha / 2 + beta * w * w / 2))
    fit = mesh2dsp.fit(model, [x], sample_rate=48000)
    assert fit["frequency_scale"] == pytest.approx(scale, rel=1e-3)
    assert fit["rayleigh_mass"] == pytest.approx(alpha, rel=0.1)
    assert fit["rayleigh_stiffness"] == pytest.approx(beta, rel=0.1)
    np.testing.assert_allclose(fit["model"].frequencies_hz, model.frequencies_hz * fit["frequency_scale"], rtol=1e-9)
    assert "--youngs-modulus" in fit["flags"] and fit["matched"] >= 3
    # Partials in other ratios: not this object.
    with pytest.raises(mesh2dsp.Error, match="does not look like this object"):
        mesh2dsp.fit(model, [_strike([1000.0, 2756.0, 5404.0, 8933.0], [1.0, 0.6, 0.4, 0.3])], sample_rate=48000)
    with pytest.raises(mesh2dsp.Error, match="need sample_rate"):
        mesh2dsp.fit(model, [x])
