"""kosmo.halofit (Smith et al. 2003 with the Takahashi et al. 2012 coefficients; docs/cosmology.md).

* Against CAMB: the linear spectra CAMB computed for a flat Lambda-CDM model (Omega_m = 0.3,
  Omega_b = 0.045, h = 0.7, n_s = 0.96, sigma8 = 0.8, massless neutrinos) at z = 0 and z = 1 are stored
  below on CAMB's own k grid (CAMB_K, CAMB_PLIN_Z0, CAMB_PLIN_Z1), with CAMB's halofit
  (halofit_version='takahashi') P_nl / P_lin at 16 of those k (CAMB_RATIO). They were produced by
  camb 2.0.5 (the PyPI wheel; Python 3.11.7, numpy 2.4) with

      import camb
      def params(As):
          p = camb.set_params(H0=70.0, ombh2=0.045 * 0.49, omch2=0.255 * 0.49, mnu=0.0,
                              num_massive_neutrinos=0, omk=0.0, ns=0.96, As=As,
                              halofit_version="takahashi", WantTransfer=True, WantCls=False)
          p.set_matter_power(redshifts=[1.0, 0.0], kmax=200.0, nonlinear=True)
          return p
      As = 2.0e-9 * (0.8 / camb.get_results(params(2.0e-9)).get_sigma8_0()) ** 2  # 1.85241e-9
      r = camb.get_results(params(As))                                           # sigma8 = 0.8
      k, z, plin = r.get_linear_matter_power_spectrum(hubble_units=True, k_hunit=True)
      k, z, pnl = r.get_nonlinear_matter_power_spectrum(hubble_units=True, k_hunit=True)
      # z = [0, 1]; ratio = pnl / plin; r.omega_de = 0.6999146412354531

  camb is not a test dependency (its wheel installs in ~9 s, but the two CAMB runs take ~25 s and
  pull in scipy): the numbers are stored. CAMB's halofit takes Omega_m(a) and Omega_Lambda(a) from
  Omega_m = 0.3 and omega_de, the remaining 8.5e-5 (radiation) acting as curvature in those two
  formulas, so the test's Cosmology is (0.3, omega_de, 1 - 0.3 - omega_de). The stored linear spectra
  are fed to kosmo.halofit through a cubic spline of ln P in ln k (CAMB interpolates its P(k) table with
  splines too). Measured: max |ratio / CAMB - 1| = 2.2e-7 (z = 0) and 2.9e-5 (z = 1) over the 151
  CAMB grid points in 0.01 < k < 10 h/Mpc; the test asserts 1e-3 (the requirement is 1 %).
* k_sigma, n_eff and C against an independent Gaussian-filter integration (trapezoidal rule in ln k,
  bisection for sigma = 1, finite differences for the derivatives), and against the closed form of a
  power-law spectrum (n_eff = n, C = 0); self-similarity of a power law in Einstein-de Sitter.
* Limits: P_nl / P_lin -> 1 as k -> 0 as 1 - y/4 (the exp(-y/4 - y^2/8) of S03 eq. C2, y = k/k_sigma);
  monotonic growth of the ratio through the one-halo regime; exactly linear when there is no
  non-linear scale.
* measured_growth_ratio / halofit_ratio_on_bins on synthetic spectra and Gaussian random fields.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from kosmo.cosmology import Cosmology, LinearPowerSpectrum
from kosmo.halofit import (GrowthRatio, gaussian_sigma_moments, halofit_parameters, halofit_parameters_at,
                           halofit_power, halofit_ratio_on_bins, measured_growth_ratio, nonlinear_ratio,
                           nonlinear_scale)
from kosmo.spectra import PowerSpectrum, power_spectrum_of_field

# ------------------------------------------------------------------------------------------------
# CAMB 2.0.5 reference (see the module docstring for the exact call)
# ------------------------------------------------------------------------------------------------

CAMB_OMEGA_DE = 0.6999146412354531

CAMB_K = np.array([
    7.1428570664e-05, 9.9686600151e-05, 1.3912386203e-04, 1.9416298892e-04, 2.7097627753e-04, 3.7817785051e-04,
    5.2778969985e-04, 7.3658989277e-04, 1.0279939743e-03, 1.4346812386e-03, 2.0022590179e-03, 2.7943775058e-03,
    3.8998678792e-03, 4.0320544504e-03, 4.1687213816e-03, 4.3100207113e-03, 4.4561093673e-03, 4.6071493998e-03,
    4.7633093782e-03, 4.9247620627e-03, 5.0916876644e-03, 5.2642710507e-03, 5.4427040741e-03, 5.6271851063e-03,
    5.8179190382e-03, 6.0151182115e-03, 6.2190014869e-03, 6.4297951758e-03, 6.6477335058e-03, 6.8730595522e-03,
    7.1060224436e-03, 7.3468820192e-03, 7.5959055685e-03, 7.8533692285e-03, 8.1195598468e-03, 8.3947740495e-03,
    8.6793154478e-03, 8.9735016227e-03, 9.2776594684e-03, 9.5921270549e-03, 9.9172536284e-03, 1.0253399611e-02,
    1.0600940324e-02, 1.0960260406e-02, 1.1331759393e-02, 1.1715850793e-02, 1.2112960219e-02, 1.2523530982e-02,
    1.2948017567e-02, 1.3386892155e-02, 1.3840641826e-02, 1.4309772290e-02, 1.4794803225e-02, 1.5296274796e-02,
    1.5814743936e-02, 1.6350787133e-02, 1.6904998571e-02, 1.7477994785e-02, 1.8070414662e-02, 1.8682911992e-02,
    1.9316172227e-02, 1.9970895723e-02, 2.0647810772e-02, 2.1347671747e-02, 2.2071253508e-02, 2.2819360718e-02,
    2.3592825979e-02, 2.4392507970e-02, 2.5219293311e-02, 2.6074104011e-02, 2.6957890019e-02, 2.7871631086e-02,
    2.8816342354e-02, 2.9793076217e-02, 3.0802914873e-02, 3.1846985221e-02, 3.2926440239e-02, 3.4042485058e-02,
    3.5196360201e-02, 3.6389343441e-02, 3.7622764707e-02, 3.8897994906e-02, 4.0216445923e-02, 4.1579585522e-02,
    4.2988929898e-02, 4.4446047395e-02, 4.5952551067e-02, 4.7510117292e-02, 4.9120478332e-02, 5.0785422325e-02,
    5.2506800741e-02, 5.4286524653e-02, 5.6126572192e-02, 5.8772072196e-02, 6.1417575926e-02, 6.4063079655e-02,
    6.6708579659e-02, 6.9354087114e-02, 7.1999587119e-02, 7.4645087123e-02, 7.7290594578e-02, 7.9936094582e-02,
    8.2581594586e-02, 8.5227102041e-02, 8.7872602046e-02, 9.0518109500e-02, 9.3163609505e-02, 9.5809109509e-02,
    9.8454616964e-02, 1.0110011697e-01, 1.0374561697e-01, 1.0639112443e-01, 1.0903662443e-01, 1.1168212444e-01,
    1.1432763189e-01, 1.1697313190e-01, 1.1961863935e-01, 1.2226413935e-01, 1.2490963936e-01, 1.2755514681e-01,
    1.3020065427e-01, 1.3284614682e-01, 1.3549165428e-01, 1.3813716173e-01, 1.4078265429e-01, 1.4342816174e-01,
    1.4607366920e-01, 1.4871916175e-01, 1.5136466920e-01, 1.5401017666e-01, 1.5665566921e-01, 1.5930117667e-01,
    1.6194668412e-01, 1.6459217668e-01, 1.6723768413e-01, 1.6988319159e-01, 1.7252868414e-01, 1.7517419159e-01,
    1.7781969905e-01, 1.8046519160e-01, 1.8311069906e-01, 1.8575620651e-01, 1.8840171397e-01, 1.9104720652e-01,
    1.9369271398e-01, 1.9633822143e-01, 1.9898371398e-01, 2.0162922144e-01, 2.0427472889e-01, 2.0692022145e-01,
    2.0956572890e-01, 2.1221123636e-01, 2.2069856524e-01, 2.2952535748e-01, 2.3870517313e-01, 2.4825213850e-01,
    2.5818091631e-01, 2.6850679517e-01, 2.7924567461e-01, 2.9041403532e-01, 3.0202907324e-01, 3.1410866976e-01,
    3.2667136192e-01, 3.3973652124e-01, 3.5332420468e-01, 3.6745533347e-01, 3.8215163350e-01, 3.9743569493e-01,
    4.1333103180e-01, 4.2986211181e-01, 4.4705435634e-01, 4.6493420005e-01, 4.8352912068e-01, 5.0286775827e-01,
    5.2297985554e-01, 5.4389631748e-01, 5.6564933062e-01, 5.8827233315e-01, 6.1180013418e-01, 6.3626897335e-01,
    7.9272431135e-01, 9.8765128851e-01, 1.2305097580e+00, 1.5330860615e+00, 1.9100642204e+00, 2.3797395229e+00,
    2.9649055004e+00, 3.6939609051e+00, 4.6022877693e+00, 5.7339673042e+00, 7.1439208984e+00, 8.9005756378e+00,
    1.1089182854e+01, 1.3815957069e+01, 1.7213232040e+01, 2.1445880890e+01, 2.6719314575e+01, 3.3289463043e+01,
    4.1475173950e+01, 5.1673713684e+01, 6.4380020142e+01, 8.0210746765e+01, 9.9934165955e+01, 1.2450748444e+02,
    1.5512324524e+02, 1.9326728821e+02, 2.4079074097e+02, 3.0000000000e+02,
])
CAMB_PLIN_Z0 = np.array([
    2.9960151884e+02, 4.1253937371e+02, 5.6798571944e+02, 7.8183305216e+02, 1.0757452068e+03, 1.4789966044e+03,
    2.0305708883e+03, 2.7812225857e+03, 3.7948663501e+03, 5.1475097786e+03, 6.9201576082e+03, 9.1812284385e+03,
    1.1952570212e+04, 1.2255944604e+04, 1.2563608887e+04, 1.2875386669e+04, 1.3191080406e+04, 1.3510474912e+04,
    1.3833332408e+04, 1.4159391700e+04, 1.4488376155e+04, 1.4819965859e+04, 1.5153837157e+04, 1.5489628018e+04,
    1.5826942733e+04, 1.6165381004e+04, 1.6504483921e+04, 1.6843785262e+04, 1.7182772730e+04, 1.7520906928e+04,
    1.7857613217e+04, 1.8201058906e+04, 1.8533885125e+04, 1.8863426395e+04, 1.9188979854e+04, 1.9509797320e+04,
    1.9825091461e+04, 2.0134046519e+04, 2.0435806594e+04, 2.0729467964e+04, 2.1014111091e+04, 2.1288762697e+04,
    2.1552418385e+04, 2.1804039665e+04, 2.2042562632e+04, 2.2266887468e+04, 2.2475891907e+04, 2.2668430122e+04,
    2.2843336076e+04, 2.2999438527e+04, 2.3135546925e+04, 2.3237686090e+04, 2.3329223449e+04, 2.3397214289e+04,
    2.3440532724e+04, 2.3458099669e+04, 2.3448904130e+04, 2.3412010023e+04, 2.3346568936e+04, 2.3251832743e+04,
    2.3126878316e+04, 2.2971887383e+04, 2.2786270938e+04, 2.2569949156e+04, 2.2323055187e+04, 2.2045959303e+04,
    2.1739311701e+04, 2.1404035551e+04, 2.1041332661e+04, 2.0652748478e+04, 2.0240136044e+04, 1.9805654749e+04,
    1.9351910304e+04, 1.8881478546e+04, 1.8397527966e+04, 1.7903392955e+04, 1.7402610120e+04, 1.6898861003e+04,
    1.6395946866e+04, 1.5897711361e+04, 1.5407949106e+04, 1.4930008007e+04, 1.4467213735e+04, 1.4022584070e+04,
    1.3594698582e+04, 1.3194843611e+04, 1.2819703367e+04, 1.2469716109e+04, 1.2144152662e+04, 1.1841449523e+04,
    1.1559293264e+04, 1.1294480057e+04, 1.1042845415e+04, 1.0712404606e+04, 1.0396401591e+04, 1.0077958373e+04,
    9.7444122012e+03, 9.3905366568e+03, 9.0164756209e+03, 8.6242260501e+03, 8.2187936516e+03, 7.8083967511e+03,
    7.4011689305e+03, 7.0043900321e+03, 6.6259436797e+03, 6.2732706642e+03, 5.9517179565e+03, 5.6647290425e+03,
    5.4138820101e+03, 5.1982800217e+03, 5.0151501934e+03, 4.8607314612e+03, 4.7301154645e+03, 4.6177216044e+03,
    4.5175641940e+03, 4.4247207884e+03, 4.3345893008e+03, 4.2430180983e+03, 4.1467155522e+03, 4.0435018055e+03,
    3.9322935711e+03, 3.8129469567e+03, 3.6864354461e+03, 3.5548284298e+03, 3.4208295470e+03, 3.2873065123e+03,
    3.1570048355e+03, 3.0324790920e+03, 2.9158389720e+03, 2.8085660947e+03, 2.7115218566e+03, 2.6249953452e+03,
    2.5487945668e+03, 2.4823009545e+03, 2.4245399592e+03, 2.3741856280e+03, 2.3296186834e+03, 2.2891082772e+03,
    2.2509651276e+03, 2.2135759034e+03, 2.1755300201e+03, 2.1358200516e+03, 2.0938430318e+03, 2.0492559454e+03,
    2.0020230883e+03, 1.9524798160e+03, 1.9011964395e+03, 1.8488414798e+03, 1.7961924063e+03, 1.7441074642e+03,
    1.6934229917e+03, 1.6448977269e+03, 1.5099797981e+03, 1.4061871386e+03, 1.3262031871e+03, 1.2523503154e+03,
    1.1689383815e+03, 1.0755634422e+03, 9.8511479246e+02, 9.0972162676e+02, 8.4953246165e+02, 7.9379460301e+02,
    7.3453998513e+02, 6.7447225624e+02, 6.2132738088e+02, 5.7648912904e+02, 5.3445857521e+02, 4.9226357945e+02,
    4.5268707496e+02, 4.1791670256e+02, 3.8591427818e+02, 3.5505872850e+02, 3.2656328208e+02, 3.0081927099e+02,
    2.7671920880e+02, 2.5424159344e+02, 2.3371722333e+02, 2.1470065597e+02, 1.9707818448e+02, 1.8089778295e+02,
    1.1097755910e+02, 6.7286815643e+01, 4.0367182733e+01, 2.3986884385e+01, 1.4130974383e+01, 8.2597671350e+00,
    4.7937191175e+00, 2.7641640867e+00, 1.5844672185e+00, 9.0333218945e-01, 5.1244992235e-01, 2.8937748684e-01,
    1.6271924805e-01, 9.1139829160e-02, 5.0861649957e-02, 2.8286881420e-02, 1.5680998350e-02, 8.6660020433e-03,
    4.7747985513e-03, 2.6229213956e-03, 1.4363630948e-03, 7.8393480255e-04, 4.2621102909e-04, 2.3064926541e-04,
    1.2408618364e-04, 6.6244126785e-05, 3.5005855217e-05, 1.8254630632e-05,
])
CAMB_PLIN_Z1 = np.array([
    1.1202853759e+02, 1.5426074368e+02, 2.1239168972e+02, 2.9237023323e+02, 4.0231221401e+02, 5.5319737120e+02,
    7.5966252332e+02, 1.0407482740e+03, 1.4203398331e+03, 1.9268075346e+03, 2.5904925748e+03, 3.4370122652e+03,
    4.4745438248e+03, 4.5881201081e+03, 4.7033015998e+03, 4.8200230350e+03, 4.9382115206e+03, 5.0577842932e+03,
    5.1786547239e+03, 5.3007228970e+03, 5.4238853372e+03, 5.5480238820e+03, 5.6730165323e+03, 5.7987261152e+03,
    5.9250110444e+03, 6.0517114132e+03, 6.1786627033e+03, 6.3056862753e+03, 6.4325945714e+03, 6.5591811465e+03,
    6.6852362422e+03, 6.8138115840e+03, 6.9384123368e+03, 7.0617833623e+03, 7.1836607434e+03, 7.3037648403e+03,
    7.4218019529e+03, 7.5374657312e+03, 7.6504361584e+03, 7.7603747955e+03, 7.8669378820e+03, 7.9697562952e+03,
    8.0684623418e+03, 8.1626614649e+03, 8.2519569125e+03, 8.3359384756e+03, 8.4141839295e+03, 8.4862631950e+03,
    8.5517456551e+03, 8.6101847861e+03, 8.6611410149e+03, 8.6993771620e+03, 8.7336485795e+03, 8.7591029696e+03,
    8.7753190527e+03, 8.7818969787e+03, 8.7784560579e+03, 8.7646447414e+03, 8.7401456021e+03, 8.7046819178e+03,
    8.6579027468e+03, 8.5998809969e+03, 8.5303922982e+03, 8.4494086435e+03, 8.3569795082e+03, 8.2532459940e+03,
    8.1384487036e+03, 8.0129317315e+03, 7.8771496068e+03, 7.7316786654e+03, 7.5772088041e+03, 7.4145560824e+03,
    7.2446893166e+03, 7.0685754819e+03, 6.8874017289e+03, 6.7024159046e+03, 6.5149390102e+03, 6.3263521788e+03,
    6.1380788919e+03, 5.9515569322e+03, 5.7682072355e+03, 5.5892821131e+03, 5.4160286271e+03, 5.2495743701e+03,
    5.0893876351e+03, 4.9396961695e+03, 4.7992572570e+03, 4.6682335208e+03, 4.5463540771e+03, 4.4330326905e+03,
    4.3274019233e+03, 4.2282657608e+03, 4.1340627720e+03, 4.0103571555e+03, 3.8920562687e+03, 3.7728414674e+03,
    3.6479739547e+03, 3.5154958153e+03, 3.3754598001e+03, 3.2286152296e+03, 3.0768340853e+03, 2.9231957175e+03,
    2.7707436318e+03, 2.6222034063e+03, 2.4805261102e+03, 2.3484976210e+03, 2.2281191359e+03, 2.1206800485e+03,
    2.0267720029e+03, 1.9460576618e+03, 1.8775003069e+03, 1.8196913668e+03, 1.7707930534e+03, 1.7287169568e+03,
    1.6912213714e+03, 1.6564637162e+03, 1.6227217525e+03, 1.5884407002e+03, 1.5523880332e+03, 1.5137484552e+03,
    1.4721162387e+03, 1.4274364782e+03, 1.3800749194e+03, 1.3308061219e+03, 1.2806415526e+03, 1.2306550019e+03,
    1.1818743756e+03, 1.1352560911e+03, 1.0915901162e+03, 1.0514308425e+03, 1.0151007700e+03, 9.8270826868e+02,
    9.5418133239e+02, 9.2928831668e+02, 9.0766461888e+02, 8.8881379551e+02, 8.7212935470e+02, 8.5696365838e+02,
    8.4268413720e+02, 8.2868681559e+02, 8.1444376175e+02, 7.9957777641e+02, 7.8386305359e+02, 7.6717123308e+02,
    7.4948880854e+02, 7.3094144134e+02, 7.1174267585e+02, 6.9214286802e+02, 6.7243283267e+02, 6.5293416749e+02,
    6.3395963874e+02, 6.1579339982e+02, 5.6528473378e+02, 5.2642824293e+02, 4.9648500990e+02, 4.6883703378e+02,
    4.3761052991e+02, 4.0265407577e+02, 3.6879321200e+02, 3.4056865266e+02, 3.1803584388e+02, 2.9716949205e+02,
    2.7498662258e+02, 2.5249928976e+02, 2.3260367194e+02, 2.1581774588e+02, 2.0008298875e+02, 1.8428659756e+02,
    1.6947052019e+02, 1.5645366888e+02, 1.4447304248e+02, 1.3292184617e+02, 1.2225411661e+02, 1.1261642637e+02,
    1.0359418158e+02, 9.5179345979e+01, 8.7495725535e+01, 8.0376558108e+01, 7.3779317788e+01, 6.7721926159e+01,
    4.1546191530e+01, 2.5189879932e+01, 1.5112089214e+01, 8.9798673962e+00, 5.2901533338e+00, 3.0921739955e+00,
    1.7946045637e+00, 1.0348083909e+00, 5.9317044932e-01, 3.3817678750e-01, 1.9184380738e-01, 1.0833310302e-01,
    6.0916606616e-02, 3.4119713185e-02, 1.9040931447e-02, 1.0589701074e-02, 5.8704811255e-03, 3.2442996813e-03,
    1.7875602907e-03, 9.8196494021e-04, 5.3775317495e-04, 2.9350201049e-04, 1.5957875597e-04, 8.6363841092e-05,
    4.6467440520e-05, 2.4810872080e-05, 1.3114155880e-05, 6.8411567777e-06,
])

# (k [h/Mpc], CAMB P_nl/P_lin at z = 0, at z = 1), k on CAMB's grid.
CAMB_RATIO = np.array([
    (0.009917253628, 0.99364780, 0.99757720),
    (0.01997089572, 0.98781155, 0.99534973),
    (0.05078542233, 0.98048831, 0.99419810),
    (0.07993609458, 0.99000479, 0.99823885),
    (0.101100117, 1.01406499, 1.01193266),
    (0.1487191617, 1.08469482, 1.04142105),
    (0.198983714, 1.19050557, 1.08595381),
    (0.3020290732, 1.52341970, 1.23650207),
    (0.5028677583, 2.45600602, 1.65578258),
    (0.6362689734, 3.25232814, 2.01515353),
    (0.9876512885, 5.77303156, 3.17680448),
    (1.533086061, 10.13251636, 5.34056942),
    (2.379739523, 16.39875813, 8.95855413),
    (3.693960905, 23.95450554, 14.23870032),
    (5.733967304, 32.29249106, 20.79993964),
    (8.900575638, 41.41500169, 27.85975994),
])

FLAT = dict(omega_m=0.3, omega_l=0.7, omega_k=0.0, omega_b=0.045, h0=70.0)


def natural_cubic_spline(x: np.ndarray, y: np.ndarray):
    """Interpolating natural cubic spline of y(x), extended linearly beyond the end points."""
    n, h = len(x), np.diff(x)
    matrix = np.zeros((n, n))
    rhs = np.zeros(n)
    matrix[0, 0] = matrix[-1, -1] = 1.0
    for i in range(1, n - 1):
        matrix[i, i - 1], matrix[i, i], matrix[i, i + 1] = h[i - 1] / 6.0, (h[i - 1] + h[i]) / 3.0, h[i] / 6.0
        rhs[i] = (y[i + 1] - y[i]) / h[i] - (y[i] - y[i - 1]) / h[i - 1]
    m = np.linalg.solve(matrix, rhs)

    def evaluate(t):
        t = np.asarray(t, dtype=float)
        j = np.clip(np.searchsorted(x, t) - 1, 0, n - 2)
        u, w, hj = t - x[j], x[j + 1] - t, h[j]
        inside = (m[j] * w ** 3 + m[j + 1] * u ** 3) / (6.0 * hj) + (y[j] / hj - m[j] * hj / 6.0) * w \
            + (y[j + 1] / hj - m[j + 1] * hj / 6.0) * u
        below = y[0] + (y[1] - y[0]) / h[0] * (t - x[0])
        above = y[-1] + (y[-1] - y[-2]) / h[-1] * (t - x[-1])
        return np.where(t < x[0], below, np.where(t > x[-1], above, inside))
    return evaluate


def camb_linear(table: np.ndarray):
    spline = natural_cubic_spline(np.log(CAMB_K), np.log(table))
    return lambda k: np.exp(spline(np.log(k)))


def camb_cosmology() -> Cosmology:
    return Cosmology(omega_m=0.3, omega_l=CAMB_OMEGA_DE, omega_k=1.0 - 0.3 - CAMB_OMEGA_DE, omega_b=0.045, h0=70.0)


# ------------------------------------------------------------------------------------------------
# CAMB
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, table, column", [(1.0, "CAMB_PLIN_Z0", 1), (0.5, "CAMB_PLIN_Z1", 2)])
def test_matches_camb_takahashi_halofit(a, table, column):
    power = camb_linear(globals()[table])
    k = CAMB_RATIO[:, 0]
    np.testing.assert_allclose(power(k), np.interp(k, CAMB_K, globals()[table]), rtol=1e-8)  # nodes
    ratio = nonlinear_ratio(k, a, power, cosmology=camb_cosmology())
    np.testing.assert_allclose(ratio, CAMB_RATIO[:, column], rtol=1e-3)
    np.testing.assert_allclose(halofit_power(k, a, power, cosmology=camb_cosmology()),
                               CAMB_RATIO[:, column] * power(k), rtol=1e-3)


def test_camb_fed_nonlinear_scale_and_density_parameters():
    """Omega_m(a) and Omega_Lambda(a) handed to halofit (E^2 = Omega_m a^-3 + Omega_k a^-2 + Omega_L);
    k_sigma and n_eff of CAMB's spectra in the expected ranges."""
    cosmo = camb_cosmology()
    p0 = halofit_parameters_at(1.0, camb_linear(CAMB_PLIN_Z0), cosmology=cosmo)
    p1 = halofit_parameters_at(0.5, camb_linear(CAMB_PLIN_Z1), cosmology=cosmo)
    omega_k = 1.0 - 0.3 - CAMB_OMEGA_DE
    e2 = 0.3 * 8.0 + omega_k * 4.0 + CAMB_OMEGA_DE
    assert p1.omega_m == pytest.approx(0.3 * 8.0 / e2, rel=1e-14)
    assert p1.omega_l == pytest.approx(CAMB_OMEGA_DE / e2, rel=1e-14)
    assert p0.omega_m == pytest.approx(0.3, rel=1e-14)
    # The non-linear scale grows as the amplitude drops: sigma(R) scales with D, D(1/2)/D(1) ~ 0.61.
    assert 0.36 < p0.k_sigma < 0.39 and 0.88 < p1.k_sigma < 0.92
    assert -1.8 < p0.n_eff < -1.7 and -2.05 < p1.n_eff < -1.95


# ------------------------------------------------------------------------------------------------
# The non-linear scale
# ------------------------------------------------------------------------------------------------

def independent_nonlinear_scale(power) -> tuple[float, float, float]:
    """sigma^2(R) = int Delta^2 exp(-k^2 R^2) d ln k by the trapezoidal rule on 40000 points in ln k,
    R of sigma = 1 by bisection in ln R, and n_eff, C from central differences in ln R."""
    log_k = np.linspace(math.log(1e-6), math.log(1e3), 40001)
    k = np.exp(log_k)
    delta2 = k ** 3 * power(k) / (2.0 * math.pi ** 2)

    def log_variance(log_r: float) -> float:
        return math.log(np.trapezoid(delta2 * np.exp(-(k * math.exp(log_r)) ** 2), log_k))

    lo, hi = math.log(1e-3), math.log(1e2)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if log_variance(mid) > 0.0 else (lo, mid)
    root, step = 0.5 * (lo + hi), 1e-3
    up, down = log_variance(root + step), log_variance(root - step)
    slope = (up - down) / (2.0 * step)
    second = (up - 2.0 * log_variance(root) + down) / step ** 2
    return math.exp(-root), -3.0 - slope, -second


@pytest.mark.parametrize("a", [1.0, 0.5, 0.25])
def test_nonlinear_scale_against_independent_integration(a):
    linear = LinearPowerSpectrum(Cosmology(**FLAT), n_s=0.96, sigma8=0.8)
    power = lambda k: linear.power(k, a)
    k_sigma, n_eff, curvature = nonlinear_scale(power)
    reference = independent_nonlinear_scale(power)
    assert k_sigma == pytest.approx(reference[0], rel=1e-6)
    assert n_eff == pytest.approx(reference[1], abs=1e-5)
    assert curvature == pytest.approx(reference[2], abs=1e-4)
    s0, _, _ = gaussian_sigma_moments(power, 1.0 / k_sigma)
    assert s0 == pytest.approx(1.0, rel=1e-10)


def test_nonlinear_scale_of_the_fiducial_model():
    """Omega_m = 0.3, Omega_Lambda = 0.7, h = 0.7, Omega_b = 0.045, n_s = 0.96, sigma8 = 0.8 with the
    Eisenstein & Hu spectrum: k_sigma = 0.37416 h/Mpc at z = 0 (CAMB's transfer function gives 0.37268),
    checked by the independent integration."""
    linear = LinearPowerSpectrum(Cosmology(**FLAT), n_s=0.96, sigma8=0.8)
    reference = independent_nonlinear_scale(lambda k: linear.power(k))
    assert reference[0] == pytest.approx(0.37416, abs=1e-5)
    assert halofit_parameters_at(1.0, linear).k_sigma == pytest.approx(reference[0], rel=1e-6)
    assert independent_nonlinear_scale(camb_linear(CAMB_PLIN_Z0))[0] == pytest.approx(
        halofit_parameters_at(1.0, camb_linear(CAMB_PLIN_Z0), cosmology=camb_cosmology()).k_sigma, rel=1e-6)


@pytest.mark.parametrize("n", [-2.0, -1.5, -1.0])
def test_power_law_closed_form(n):
    """P = A k^n: sigma^2(R) = A Gamma((n+3)/2) / (4 pi^2 R^(n+3)), so n_eff = n, C = 0 and
    k_sigma = (4 pi^2 / (A Gamma((n+3)/2)))^(1/(n+3))."""
    amplitude = 300.0
    k_sigma, n_eff, curvature = nonlinear_scale(lambda k: amplitude * k ** n)
    exact = (4.0 * math.pi ** 2 / (amplitude * math.gamma(0.5 * (n + 3.0)))) ** (1.0 / (n + 3.0))
    assert k_sigma == pytest.approx(exact, rel=1e-7)
    assert n_eff == pytest.approx(n, abs=1e-7)
    assert curvature == pytest.approx(0.0, abs=1e-7)


def test_power_law_self_similar_in_einstein_de_sitter():
    """For a power law in Omega_m = 1 (f1 = f2 = f3 = 1) Delta^2_NL depends on y = k / k_sigma only:
    changing the amplitude by 1000 shifts the curve in k and nothing else."""
    eds = Cosmology(omega_m=1.0, omega_l=0.0, omega_k=0.0, omega_b=0.05, h0=70.0)
    n = -1.5
    y = np.geomspace(1e-2, 1e2, 40)
    curves = []
    for amplitude in (30.0, 30000.0):
        power = lambda k, A=amplitude: A * k ** n
        k_sigma = nonlinear_scale(power)[0]
        k = y * k_sigma
        curves.append(k ** 3 * halofit_power(k, 1.0, power, cosmology=eds))
    np.testing.assert_allclose(curves[0], curves[1], rtol=1e-9)
    assert curves[0][-1] > 10.0 * (y[-1] ** 1.5 * 2.0 / math.gamma(0.75))  # far above linear at y = 100


# ------------------------------------------------------------------------------------------------
# Limits
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a", [1.0, 0.5])
def test_linear_on_large_scales(a):
    """As y = k / k_sigma -> 0 (S03 eqs. C2-C4, T12 mu_n = 0), to first order in small quantities
    1 - P_nl / P_lin = y/4 - (beta_n - alpha_n) Delta^2_L - a_n y^(3 f1 + 2) / (nu_n Delta^2_L):
    the exp(-y/4 - y^2/8) cut-off of the quasi-linear term, its (1 + Delta)^beta / (1 + alpha Delta)
    factor, and the one-halo term, which falls as y^(3 f1 + 2) against Delta^2_L ~ y^(3 + n_s), i.e.
    only as y^1.15 relative to the linear power (it is 6 % of y/4 even at k = 1e-6 h/Mpc).
    At k <= 1e-3 h/Mpc the ratio is 1 to 1e-3; at k = 0.005 h/Mpc it is 1 - 3.2e-3 at z = 0
    (y/4 = 3.3e-3), as in CAMB, which sets the ratio to 1 below its Min_kh_nonlinear = 0.005 h/Mpc."""
    linear = LinearPowerSpectrum(Cosmology(**FLAT), n_s=0.96, sigma8=0.8)
    p = halofit_parameters_at(a, linear)
    k = np.array([1e-6, 1e-5, 1e-4])
    y = k / p.k_sigma
    delta2 = k ** 3 * linear.power(k, a) / (2.0 * math.pi ** 2)
    expected = y / 4.0 - (p.beta_n - p.alpha_n) * delta2 - p.a_n * y ** (3.0 * p.f1 + 2.0) / (p.nu_n * delta2)
    deficit = 1.0 - nonlinear_ratio(k, a, linear)
    np.testing.assert_allclose(deficit, expected, rtol=2e-4)
    assert np.all(deficit > 0.0) and np.all(deficit < y / 4.0)
    for small in (1e-4, 5e-4, 1e-3):
        assert abs(nonlinear_ratio(small, a, linear) - 1.0) < 1e-3
    quarter_y = 0.005 / p.k_sigma / 4.0
    assert 0.8 * quarter_y < 1.0 - nonlinear_ratio(0.005, a, linear) < quarter_y


@pytest.mark.parametrize("a", [1.0, 0.5])
def test_ratio_grows_monotonically_through_the_one_halo_regime(a):
    linear = LinearPowerSpectrum(Cosmology(**FLAT), n_s=0.96, sigma8=0.8)
    k = np.geomspace(0.1, 10.0, 400)
    ratio = nonlinear_ratio(k, a, linear)
    assert np.all(np.diff(ratio) > 0.0)
    assert ratio[-1] > 25.0
    # Beyond k_sigma the power is well above linear.
    k_sigma = halofit_parameters_at(a, linear).k_sigma
    assert np.all(ratio[k > k_sigma] > 1.5)


def test_no_nonlinear_scale_gives_the_linear_spectrum():
    linear = LinearPowerSpectrum(Cosmology(**FLAT), n_s=0.96, sigma8=0.8)
    parameters = halofit_parameters_at(0.01, linear)
    assert parameters.linear and math.isinf(parameters.k_sigma)
    k = np.geomspace(1e-3, 100.0, 20)
    np.testing.assert_array_equal(halofit_power(k, 0.01, linear), linear.power(k, 0.01))


# ------------------------------------------------------------------------------------------------
# Interfaces and the Omega dependence
# ------------------------------------------------------------------------------------------------

def test_inputs_are_equivalent():
    cosmo = Cosmology(**FLAT)
    linear = LinearPowerSpectrum(cosmo, n_s=0.96, sigma8=0.8)
    k = np.geomspace(0.01, 10.0, 7).reshape(7, 1)
    from_linear = halofit_power(k, 0.7, linear)
    assert from_linear.shape == (7, 1)
    np.testing.assert_allclose(halofit_power(k, 0.7, cosmo, n_s=0.96, sigma8=0.8), from_linear, rtol=1e-12)
    np.testing.assert_allclose(halofit_power(k, 0.7, lambda q: linear.power(q, 0.7), cosmology=cosmo), from_linear,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="cosmology="):
        halofit_power(k, 0.7, lambda q: linear.power(q, 0.7))
    with pytest.raises(ValueError):
        halofit_power([0.0, 1.0], 1.0, linear)


def test_omega_functions_open_flat_and_curved():
    """f1, f2, f3 (S03 C17-C18): the flat form when Omega_m + Omega_Lambda = 1, the open form when
    Omega_Lambda = 0, linear in Omega_Lambda / (1 - Omega_m) between, and 1 for Omega_m = 1."""
    power = lambda k: 500.0 * k ** -1.5
    flat = halofit_parameters(power, 0.3, 0.7)
    open_ = halofit_parameters(power, 0.3, 0.0)
    half = halofit_parameters(power, 0.3, 0.35)
    assert (flat.f1, flat.f2, flat.f3) == pytest.approx((0.3 ** -0.0307, 0.3 ** -0.0585, 0.3 ** 0.0743), rel=1e-14)
    assert (open_.f1, open_.f2, open_.f3) == pytest.approx((0.3 ** -0.0732, 0.3 ** -0.1423, 0.3 ** 0.0725),
                                                           rel=1e-14)
    assert half.f2 == pytest.approx(0.5 * (flat.f2 + open_.f2), rel=1e-14)
    unity = halofit_parameters(power, 1.0, 0.0)
    assert (unity.f1, unity.f2, unity.f3) == (1.0, 1.0, 1.0)
    # The curved cosmology's Omega(a) reach halofit.
    curved = Cosmology(omega_m=0.3, omega_l=0.6, omega_k=0.1, omega_b=0.045, h0=70.0)
    p = halofit_parameters_at(0.5, LinearPowerSpectrum(curved), cosmology=None)
    e2 = 0.3 * 8.0 + 0.1 * 4.0 + 0.6
    assert (p.omega_m, p.omega_l) == pytest.approx((2.4 / e2, 0.6 / e2), rel=1e-14)
    assert p.f1 == pytest.approx(0.6 / e2 / (1 - 2.4 / e2) * p.omega_m ** -0.0307
                                 + (1 - 0.6 / e2 / (1 - 2.4 / e2)) * p.omega_m ** -0.0732, rel=1e-14)


# ------------------------------------------------------------------------------------------------
# measured_growth_ratio and halofit_ratio_on_bins
# ------------------------------------------------------------------------------------------------

def spectrum(k: np.ndarray, power: np.ndarray, edges: np.ndarray, boxlen: float = 100.0, n: int = 64):
    return PowerSpectrum(k, power, np.full(len(k), 100), edges, boxlen, n)


def test_measured_growth_ratio_of_synthetic_spectra():
    """EdS: D = a, so P_f = P_i (a_f / a_i)^2 r(k) must give back r(k); a linearly grown spectrum gives 1."""
    eds = Cosmology(omega_m=1.0, omega_l=0.0, omega_k=0.0, omega_b=0.05, h0=70.0)
    edges = np.geomspace(0.05, 2.0, 11)
    k = np.sqrt(edges[1:] * edges[:-1])
    initial = 1e3 * k ** -1.2
    r = 1.0 + k ** 2
    result = measured_growth_ratio(spectrum(k, initial * (1.0 / 0.02) ** 2 * r, edges), spectrum(k, initial, edges),
                                   0.02, 1.0, eds)
    assert isinstance(result, GrowthRatio)
    np.testing.assert_allclose(result.k, k, rtol=0.0)
    np.testing.assert_allclose(result.ratio, r, rtol=1e-12)
    # Lambda-CDM: the growth factor of the cosmology (D(1)/D(0.02) = 38.64...; EdS would give 50).
    lcdm = Cosmology(**FLAT)
    growth = float(lcdm.growth_factor(1.0) / lcdm.growth_factor(0.02))
    assert 38.0 < growth < 39.5
    k_out, ratio = measured_growth_ratio(spectrum(k, initial * growth ** 2, edges), spectrum(k, initial, edges),
                                         0.02, 1.0, lcdm)
    np.testing.assert_allclose(ratio, 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match="same edges"):
        measured_growth_ratio(spectrum(k, initial, edges * 1.01), spectrum(k, initial, edges), 0.02, 1.0, lcdm)
    with pytest.raises(ValueError, match="different boxes"):
        measured_growth_ratio(spectrum(k, initial, edges, boxlen=50.0), spectrum(k, initial, edges), 0.02, 1.0, lcdm)


def grid_wavenumbers(n: int, boxlen: float) -> np.ndarray:
    m = np.fft.fftfreq(n, 1.0 / n)
    mx, my, mz = np.meshgrid(m, m, m, indexing="ij")
    return 2.0 * math.pi / boxlen * np.sqrt(mx ** 2 + my ** 2 + mz ** 2)


def test_halofit_ratio_on_bins_averages_over_the_modes():
    """On a PowerSpectrum the ratio is sum P_nl / sum P_lin over each bin's modes of the full n^3 grid,
    recomputed here with a complex-FFT grid and explicit masks; on an array it is P_nl / P_lin at k."""
    cosmo = Cosmology(**FLAT)
    n, boxlen = 32, 100.0
    ps = power_spectrum_of_field(np.random.default_rng(1).standard_normal((n, n, n)), boxlen)
    on_bins = halofit_ratio_on_bins(ps, 1.0, cosmo, n_s=0.96, sigma8=0.8)
    linear = LinearPowerSpectrum(cosmo, n_s=0.96, sigma8=0.8)
    k = grid_wavenumbers(n, boxlen)
    expected = []
    for i, (lo, hi) in enumerate(zip(ps.edges[:-1], ps.edges[1:])):
        inside = (k >= lo) & ((k < hi) if i < len(ps.edges) - 2 else (k <= hi)) & (k > 0)
        expected.append(halofit_power(k[inside], 1.0, linear).sum() / linear.power(k[inside]).sum())
    np.testing.assert_allclose(on_bins, expected, rtol=1e-12)
    at_k = halofit_ratio_on_bins(ps.k, 1.0, cosmo, n_s=0.96, sigma8=0.8)
    np.testing.assert_allclose(at_k, nonlinear_ratio(ps.k, 1.0, linear), rtol=1e-14)
    np.testing.assert_allclose(on_bins, at_k, rtol=5e-3)  # bin average vs value at the mean k: 0.3 % at most


def test_growth_ratio_of_gaussian_fields_matches_halofit_on_bins():
    """A Gaussian field of the linear spectrum at a_i = 1/51 and the same field with every mode scaled by
    (D_f / D_i) sqrt(P_nl / P_lin)(|k|) at a = 1: the measured ratio is halofit's bin ratio to within the
    scatter of |delta_k|^2 inside a bin (0.4 % here), and 1 for a purely linear scaling."""
    cosmo = Cosmology(**FLAT)
    linear = LinearPowerSpectrum(cosmo, n_s=0.96, sigma8=0.8)
    n, boxlen, a_i = 64, 100.0, 1.0 / 51.0
    k = grid_wavenumbers(n, boxlen)
    positive = k > 0.0
    amplitude = np.zeros_like(k)
    amplitude[positive] = np.sqrt(n ** 3 * linear.power(k[positive], a_i) / boxlen ** 3)
    white = np.fft.fftn(np.random.default_rng(7).standard_normal((n, n, n)))
    modes_initial = white * amplitude
    growth = float(cosmo.growth_factor(1.0) / cosmo.growth_factor(a_i))
    boost = np.ones_like(k)
    boost[positive] = np.sqrt(nonlinear_ratio(k[positive], 1.0, linear))
    initial = power_spectrum_of_field(np.fft.ifftn(modes_initial).real, boxlen)
    final = power_spectrum_of_field(np.fft.ifftn(modes_initial * growth * boost).real, boxlen)
    linear_final = power_spectrum_of_field(np.fft.ifftn(modes_initial * growth).real, boxlen)
    k_bins, measured = measured_growth_ratio(final, initial, a_i, 1.0, cosmo)
    expected = halofit_ratio_on_bins(initial, 1.0, cosmo, n_s=0.96, sigma8=0.8)
    band = (k_bins > 0.2) & (k_bins < 1.0)
    assert band.sum() >= 10
    np.testing.assert_allclose(measured[band], expected[band], rtol=0.01)  # 0.4 % measured
    assert np.all(expected[band] > 1.15)  # genuinely non-linear there
    np.testing.assert_allclose(measured_growth_ratio(linear_final, initial, a_i, 1.0, cosmo).ratio, 1.0, rtol=1e-10)
