"""The float64 noise floor accepts ms gradients no further from float64 than torch float32 is."""
import numpy as np

from migrate.check.compare import compare, within_noise_floor


def test_gradient_within_twice_torchs_own_float32_error_passes_with_a_note():
    f64 = np.linspace(-1, 1, 50)
    t32 = f64 + 1e-3  # torch float32's own rounding error
    ms_close = f64 - 1.5e-3  # fails rtol 1e-4 against torch float32, but is noise-level
    st = within_noise_floor(compare(ms_close, t32), ms_close, f64, compare(t32, f64))
    assert st.passed and "within float32 noise" in st.note
    ms_far = f64 + 1e-2  # ten times torch's own error: a real difference
    st = within_noise_floor(compare(ms_far, t32), ms_far, f64, compare(t32, f64))
    assert not st.passed
