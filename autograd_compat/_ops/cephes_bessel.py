"""The Bessel functions J0, J1, Y0, Y1, K0, K1 (and K0, K1 scaled by exp(x)) and the Airy
function Ai as pure jnp functions, by the Cephes Math Library's rational and Chebyshev
approximations that PyTorch's CPU kernels evaluate (same ranges, coefficients and edge
values), in the input's own precision. Every range is computed and the right one selected
with `jnp.where`, so a value outside a range's domain (a NaN, an infinity) never escapes it.

The coefficients are the Cephes Math Library's (Copyright (c) 2018, Steven Moshier, 3-clause
BSD license)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jss

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_TWO_OVER_PI = 2 / math.pi
_QUARTER_PI = math.pi / 4
_THREE_QUARTERS_PI = 3 * math.pi / 4
_INV_SQRT_PI = 1 / math.sqrt(math.pi)


def _coefficients(text: str) -> tuple[float, ...]:
    """A coefficient table from whitespace-separated numbers, highest degree first."""
    return tuple(float(word) for word in text.split())


def _polynomial(x, coefficients: tuple[float, ...]):
    """Horner's rule: the polynomial whose coefficients, highest degree first, are given."""
    result = jnp.zeros_like(x)
    for c in coefficients:
        result = result * x + c
    return result


def _chebyshev(y, coefficients: tuple[float, ...]):
    """Clenshaw's recurrence: half the sum of the Chebyshev series at y / 2 (Cephes' chbevl)."""
    b0, b1, b2 = jnp.full_like(y, coefficients[0]), jnp.zeros_like(y), jnp.zeros_like(y)
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


# J0 and Y0 for x > 5: the modulus (PP/PQ) and phase (QP/QQ) corrections in 25 / x^2.
_P0_NUM = _coefficients("""
7.96936729297347051624e-04 8.28352392107440799803e-02 1.23953371646414299388e+00
5.44725003058768775090e+00 8.74716500199817011941e+00 5.30324038235394892183e+00
9.99999999999999997821e-01""")
_P0_DEN = _coefficients("""
9.24408810558863637013e-04 8.56288474354474431428e-02 1.25352743901058953537e+00
5.47097740330417105182e+00 8.76190883237069594232e+00 5.30605288235394617618e+00
1.00000000000000000218e+00""")
_Q0_NUM = _coefficients("""
-1.13663838898469149931e-02 -1.28252718670509318512e+00 -1.95539544257735972385e+01
-9.32060152123768231369e+01 -1.77681167980488050595e+02 -1.47077505154951170175e+02
-5.14105326766599330220e+01 -6.05014350600728481186e+00""")
_Q0_DEN = _coefficients("""
6.43178256118178023184e+01 8.56430025976980587198e+02 3.88240183605401609683e+03
7.24046774195652478189e+03 5.93072701187316984827e+03 2.06209331660327847417e+03
2.42005740240291393179e+02""")
# J1 and Y1 for x > 5.
_P1_NUM = _coefficients("""
7.62125616208173112003e-04 7.31397056940917570436e-02 1.12719608129684925192e+00
5.11207951146807644818e+00 8.42404590141772420927e+00 5.21451598682361504063e+00
1.00000000000000000254e+00""")
_P1_DEN = _coefficients("""
5.71323128072548699714e-04 6.88455908754495404082e-02 1.10514232634061696926e+00
5.07386386128601488557e+00 8.39985554327604159757e+00 5.20982848682361821619e+00
9.99999999999999997461e-01""")
_Q1_NUM = _coefficients("""
5.10862594750176621635e-02 4.98213872951233449420e+00 7.58238284132545283818e+01
3.66779609360150777800e+02 7.10856304998926107277e+02 5.97489612400613639965e+02
2.11688757100572135698e+02 2.52070205858023719784e+01""")
_Q1_DEN = _coefficients("""
7.42373277035675149943e+01 1.05644886038262816351e+03 4.98641058337653607651e+03
9.56231892404756170795e+03 7.99704160447350683650e+03 2.82619278517639096600e+03
3.36093607810698293419e+02""")
# J0 and J1 for x <= 5, in x^2, with the first two zeros squared factored out.
_J0_NUM = _coefficients("""
-4.79443220978201773821e+09 1.95617491946556577543e+12 -2.49248344360967716204e+14
9.70862251047306323952e+15""")
_J0_DEN = _coefficients("""
4.99563147152651017219e+02 1.73785401676374683123e+05 4.84409658339962045305e+07
1.11855537045356834862e+10 2.11277520115489217587e+12 3.10518229857422583814e+14
3.18121955943204943306e+16 1.71086294081043136091e+18""")
_J0_ZEROS_SQUARED = (5.78318596294678452118e00, 3.04712623436620863991e01)
_J1_NUM = _coefficients("""
-8.99971225705559398224e+08 4.52228297998194034323e+11 -7.27494245221818276015e+13
3.68295732863852883286e+15""")
_J1_DEN = _coefficients("""
6.20836478118054335476e+02 2.56987256757748830383e+05 8.35146791431949253037e+07
2.21511595479792499675e+10 4.74914122079991414898e+12 7.84369607876235854894e+14
8.95222336184627338078e+16 5.32278620332680085395e+18""")
_J1_ZEROS_SQUARED = (1.46819706421238932572e01, 4.92184563216946036703e01)
# Y0 and Y1 for x <= 5, in x^2 (the rest is 2/pi log(x) J(x)).
_Y0_NUM = _coefficients("""
1.55924367855235737965e+04 -1.46639295903971606143e+07 5.43526477051876500413e+09
-9.82136065717911466409e+11 8.75906394395366999549e+13 -3.46628303384729719441e+15
4.42733268572569800351e+16 -1.84950800436986690637e+16""")
_Y0_DEN = _coefficients("""
1.04128353664259848412e+03 6.26107330137134956842e+05 2.68919633393814121987e+08
8.64002487103935000337e+10 2.02979612750105546709e+13 3.17157752842975028269e+15
2.50596256172653059228e+17""")
_Y1_NUM = _coefficients("""
1.26320474790178026440e+09 -6.47355876379160291031e+11 1.14509511541823727583e+14
-8.12770255501325109621e+15 2.02439475713594898196e+17 -7.78877196265950026825e+17""")
_Y1_DEN = _coefficients("""
5.94301592346128195359e+02 2.35564092943068577943e+05 7.34811944459721705660e+07
1.87601316108706159478e+10 3.88231277496238566008e+12 6.20557727146953693363e+14
6.87141087355300489866e+16 3.97270608116560655612e+18""")
# K0 and K1: Chebyshev series in x^2 - 2 for x <= 2, in 8 / x - 2 above.
_K0_SMALL = _coefficients("""
1.37446543561352307156e-16 4.25981614279661018399e-14 1.03496952576338420167e-11
1.90451637722020886025e-09 2.53479107902614945675e-07 2.28621210311945178607e-05
1.26461541144692592338e-03 3.59799365153615016266e-02 3.44289899924628486886e-01
-5.35327393233902768720e-01""")
_K0_LARGE = _coefficients("""
5.30043377268626276149e-18 -1.64758043015242134646e-17 5.21039150503902756861e-17
-1.67823109680541210385e-16 5.51205597852431940784e-16 -1.84859337734377901440e-15
6.34007647740507060557e-15 -2.22751332699166985548e-14 8.03289077536357521100e-14
-2.98009692317273043925e-13 1.14034058820847496303e-12 -4.51459788337394416547e-12
1.85594911495471785253e-11 -7.95748924447710747776e-11 3.57739728140030116597e-10
-1.69753450938905987466e-09 8.57403401741422608519e-09 -4.66048989768794782956e-08
2.76681363944501510342e-07 -1.83175552271911948767e-06 1.39498137188764993662e-05
-1.28495495816278026384e-04 1.56988388573005337491e-03 -3.14481013119645005427e-02
2.44030308206595545468e+00""")
_K1_SMALL = _coefficients("""
-7.02386347938628759343e-18 -2.42744985051936593393e-15 -6.66690169419932900609e-13
-1.41148839263352776110e-10 -2.21338763073472585583e-08 -2.43340614156596823496e-06
-1.73028895751305206302e-04 -6.97572385963986435018e-03 -1.22611180822657148235e-01
-3.53155960776544875667e-01 1.52530022733894777053e+00""")
_K1_LARGE = _coefficients("""
-5.75674448366501715755e-18 1.79405087314755922667e-17 -5.68946255844285935196e-17
1.83809354436663880070e-16 -6.05704724837331885336e-16 2.03870316562433424052e-15
-7.01983709041831346144e-15 2.47715442448130437068e-14 -8.97670518232499435011e-14
3.34841966607842919884e-13 -1.28917396095102890680e-12 5.13963967348173025100e-12
-2.12996783842756842877e-11 9.21831518760500529508e-11 -4.19035475934189648750e-10
2.01504975519703286596e-09 -1.03457624656780970260e-08 5.74108412545004946722e-08
-3.50196060308781257119e-07 2.40648494783721712015e-06 -1.93619797416608296024e-05
1.95215518471351631108e-04 -2.85781685962277938680e-03 1.03923736576817238437e-01
2.72062619048444266945e+00""")
# Ai for x >= 2.09, in 1 / zeta, zeta = 2/3 x^(3/2).
_AI_NUM = _coefficients("""
3.46538101525629032477e-01 1.20075952739645805542e+01 7.62796053615234516538e+01
1.68089224934630576269e+02 1.59756391350164413639e+02 7.05360906840444183113e+01
1.40264691163389668864e+01 9.99999999999999995305e-01""")
_AI_DEN = _coefficients("""
5.67594532638770212846e-01 1.47562562584847203173e+01 8.45138970141474626562e+01
1.77318088145400459522e+02 1.64234692871529701831e+02 7.14778400825575695274e+01
1.40959135607834029598e+01 1.00000000000000000470e+00""")
# Ai for x < -2.09: the modulus (F) and phase (G) corrections in 1 / zeta^2.
_AI_F_NUM = _coefficients("""
-1.31696323418331795333e-01 -6.26456544431912369773e-01 -6.93158036036933542233e-01
-2.79779981545119124951e-01 -4.91900132609500318020e-02 -4.06265923594885404393e-03
-1.59276496239262096340e-04 -2.77649108155232920844e-06 -1.67787698489114633780e-08""")
_AI_F_DEN = _coefficients("""
1.33560420706553243746e+01 3.26825032795224613948e+01 2.67367040941499554804e+01
9.18707402907259625840e+00 1.47529146771666414581e+00 1.15687173795188044134e-01
4.40291641615211203805e-03 7.54720348287414296618e-05 4.51850092970580378464e-07""")
_AI_G_NUM = _coefficients("""
1.97339932091685679179e-02 3.91103029615688277255e-01 1.06579897599595591108e+00
9.39169229816650230044e-01 3.51465656105547619242e-01 6.33888919628925490927e-02
5.85804113048388458567e-03 2.82851600836737019778e-04 6.98793669997260967291e-06
8.11789239554389293311e-08 3.41551784765923618484e-10""")
_AI_G_DEN = _coefficients("""
9.30892908077441974853e+00 1.98352928718312140417e+01 1.55646628932864612953e+01
5.47686069422975497931e+00 9.54293611618961883998e-01 8.64580826352392193095e-02
4.12656523824222607191e-03 1.01259085116509135510e-04 1.17166733214413521882e-06
4.91834570062930015649e-09""")
# Ai(0) and -Ai'(0): the weights of the two power series near 0.
_AI_0, _MINUS_AI_PRIME_0 = 0.355028053887817239260, 0.258819403792806798405
# Terms of the power series that reach float64's epsilon for |x| < 2.09 (12 are needed).
_AI_SERIES_TERMS = 14


def _zeta(x):
    """2/3 x^(3/2) for x >= 0, divided by 3 as PyTorch does: XLA turns a division by a
    constant into a product with its rounded reciprocal (an ulp off, which Ai's phase at
    large -x turns into visible differences), so the divisor is hidden behind a barrier."""
    three = jax.lax.optimization_barrier(jnp.full_like(x, 3.0))
    return 2.0 * x * jnp.sqrt(x) / three


def _hankel(x, w, p, q, shift: float, sine: bool):
    """The large-x form of J (cosine) or Y (sine): sqrt(2/(pi x)) (P cos(x - shift) -+
    (5/x) Q sin(x - shift)), P and Q the rational corrections in w = (5/x)^2."""
    modulus = _polynomial(w, p[0]) / _polynomial(w, p[1])
    phase = 5.0 / x * (_polynomial(w, q[0]) / _polynomial(w, q[1]))
    angle = x - shift
    if sine:
        combined = modulus * jnp.sin(angle) + phase * jnp.cos(angle)
    else:
        combined = modulus * jnp.cos(angle) - phase * jnp.sin(angle)
    return combined * _SQRT_2_OVER_PI / jnp.sqrt(x)


def _j0_abs(x):
    """J0 of x >= 0 (or NaN)."""
    square = x * x
    near = (
        (square - _J0_ZEROS_SQUARED[0])
        * (square - _J0_ZEROS_SQUARED[1])
        * _polynomial(square, _J0_NUM)
        / _polynomial(square, _J0_DEN)
    )
    near = jnp.where(x < 1e-5, 1.0 - square / 4.0, near)
    far = _hankel(x, 25.0 / square, (_P0_NUM, _P0_DEN), (_Q0_NUM, _Q0_DEN), _QUARTER_PI, False)
    return jnp.where(x <= 5.0, near, far)


def _j1_abs(x):
    """J1 of x >= 0 (or NaN, or -0.0, which gives -0.0)."""
    square = x * x
    near = (
        _polynomial(square, _J1_NUM)
        / _polynomial(square, _J1_DEN)
        * x
        * (square - _J1_ZEROS_SQUARED[0])
        * (square - _J1_ZEROS_SQUARED[1])
    )
    w = 5.0 / x * (5.0 / x)
    far = _hankel(x, w, (_P1_NUM, _P1_DEN), (_Q1_NUM, _Q1_DEN), _THREE_QUARTERS_PI, False)
    return jnp.where(x <= 5.0, near, far)


def bessel_j0(x):
    """J0, the Bessel function of the first kind of order 0 (even)."""
    return _j0_abs(jnp.abs(x))


def bessel_j1(x):
    """J1, the Bessel function of the first kind of order 1 (odd)."""
    return jnp.where(x < 0, -_j1_abs(-x), _j1_abs(x))


def _second_kind(x, near):
    """Y's value: `near` for 0 < x <= 5, -inf at 0, NaN below."""
    edge = jnp.where(x == 0, -jnp.inf, jnp.nan).astype(x.dtype)
    return jnp.where(x <= 0, edge, near)


def bessel_y0(x):
    """Y0, the Bessel function of the second kind of order 0 (NaN for x < 0)."""
    square = x * x
    positive = jnp.where(x <= 0, 1.0, x)
    near = _polynomial(square, _Y0_NUM) / _polynomial(square, _Y0_DEN) + (
        _TWO_OVER_PI * jnp.log(positive) * _j0_abs(positive)
    )
    far = _hankel(x, 25.0 / square, (_P0_NUM, _P0_DEN), (_Q0_NUM, _Q0_DEN), _QUARTER_PI, True)
    return jnp.where(x <= 5.0, _second_kind(x, near), far)


def bessel_y1(x):
    """Y1, the Bessel function of the second kind of order 1 (NaN for x < 0)."""
    square = x * x
    positive = jnp.where(x <= 0, 1.0, x)
    near = positive * (_polynomial(square, _Y1_NUM) / _polynomial(square, _Y1_DEN)) + (
        _TWO_OVER_PI * (_j1_abs(positive) * jnp.log(positive) - 1.0 / positive)
    )
    w = 5.0 / x * (5.0 / x)
    far = _hankel(x, w, (_P1_NUM, _P1_DEN), (_Q1_NUM, _Q1_DEN), _THREE_QUARTERS_PI, True)
    return jnp.where(x <= 5.0, _second_kind(x, near), far)


def _modified_second_kind(x, small, large, scaled: bool):
    """K0 or K1 (times exp(x) when `scaled`) from its two ranges: +inf at 0, NaN below."""
    value = jnp.where(x <= 2.0, small * jnp.exp(x) if scaled else small, large)
    edge = jnp.where(x == 0, jnp.inf, jnp.nan).astype(x.dtype)
    return jnp.where(x <= 0, edge, value)


def _k0_parts(x):
    """K0's small-x value and its large-x value without the factor exp(-x)."""
    positive = jnp.where(x <= 0, 1.0, x)
    small = _chebyshev(positive * positive - 2.0, _K0_SMALL) - jnp.log(0.5 * positive) * jss.i0(
        positive
    )
    large = _chebyshev(8.0 / positive - 2.0, _K0_LARGE) / jnp.sqrt(positive)
    return small, large


def _k1_parts(x):
    """K1's small-x value and its large-x value without the factor exp(-x)."""
    positive = jnp.where(x <= 0, 1.0, x)
    small = (
        jnp.log(0.5 * positive) * jss.i1(positive)
        + _chebyshev(positive * positive - 2.0, _K1_SMALL) / positive
    )
    large = _chebyshev(8.0 / positive - 2.0, _K1_LARGE) / jnp.sqrt(positive)
    return small, large


def modified_bessel_k0(x):
    """K0, the modified Bessel function of the second kind of order 0 (NaN for x < 0)."""
    small, large = _k0_parts(x)
    return _modified_second_kind(x, small, jnp.exp(-x) * large, scaled=False)


def modified_bessel_k1(x):
    """K1, the modified Bessel function of the second kind of order 1 (NaN for x < 0)."""
    small, large = _k1_parts(x)
    return _modified_second_kind(x, small, jnp.exp(-x) * large, scaled=False)


def scaled_modified_bessel_k0(x):
    """exp(x) K0(x), which stays finite where K0 underflows."""
    small, large = _k0_parts(x)
    return _modified_second_kind(x, small, large, scaled=True)


def scaled_modified_bessel_k1(x):
    """exp(x) K1(x), which stays finite where K1 underflows."""
    small, large = _k1_parts(x)
    return _modified_second_kind(x, small, large, scaled=True)


def _airy_series(x):
    """Ai near 0 from its two power series in x^3, each term added until it no longer
    changes the sum by more than the dtype's epsilon (as Cephes' loop stops)."""
    eps = jnp.finfo(x.dtype).eps
    z = x * x * x
    f, g, m, n, k = jnp.ones_like(x), x, jnp.ones_like(x), x, jnp.ones_like(x)
    active = jnp.ones(x.shape, bool)
    for _ in range(_AI_SERIES_TERMS):
        m_next = m * z / (k + 1.0) / (k + 2.0)
        n_next = n * z / (k + 2.0) / (k + 3.0)
        f = jnp.where(active, f + m_next, f)
        g = jnp.where(active, g + n_next, g)
        m, n, k = jnp.where(active, m_next, m), jnp.where(active, n_next, n), k + 3.0
        active = active & (jnp.abs(m / f) > eps)
    return _AI_0 * f - _MINUS_AI_PRIME_0 * g


def _airy_negative(x):
    """Ai for x < -2.09: the oscillating asymptotic form."""
    minus = jnp.where(x < 0, -x, 1.0)
    zeta = _zeta(minus)
    z = 1.0 / zeta
    square = z * z
    f = _polynomial(square, _AI_F_NUM) / _polynomial(square, _AI_F_DEN)
    g = z * _polynomial(square, _AI_G_NUM) / _polynomial(square, _AI_G_DEN)
    t = zeta + _QUARTER_PI
    return (
        _INV_SQRT_PI
        / jnp.sqrt(jnp.sqrt(minus))
        * (jnp.sin(t) * (1.0 + square * f) - jnp.cos(t) * g)
    )


def _airy_positive(x):
    """Ai for x >= 2.09: the decaying asymptotic form."""
    plus = jnp.where(x > 0, x, 1.0)
    zeta = _zeta(plus)
    ratio = _polynomial(1.0 / zeta, _AI_NUM) / _polynomial(1.0 / zeta, _AI_DEN)
    return _INV_SQRT_PI * ratio / (2.0 * jnp.sqrt(jnp.sqrt(plus)) * jnp.exp(zeta))


def airy_ai(x):
    """Ai, the Airy function of the first kind (NaN at +-inf, 0 beyond x = 103.892)."""
    value = jnp.where(
        x < -2.09, _airy_negative(x), jnp.where(x >= 2.09, _airy_positive(x), _airy_series(x))
    )
    value = jnp.where(x > 103.892, 0.0, value)
    return jnp.where(jnp.isinf(x), jnp.nan, value).astype(x.dtype)
