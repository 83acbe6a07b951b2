import type { UslFit } from "@throng/protocol/report";

export interface ThroughputPoint {
  clients: number;
  throughput: number;
}

/** Solves the normal equations of least squares for y ≈ Σ βj·xj (tiny systems: Gaussian elimination). */
function leastSquares(rows: number[][], y: number[]): number[] | null {
  const k = rows[0]!.length;
  const a = Array.from({ length: k }, (_, i) => [
    ...Array.from({ length: k }, (_, j) => rows.reduce((s, r) => s + r[i]! * r[j]!, 0)),
    rows.reduce((s, r, n) => s + r[i]! * y[n]!, 0),
  ]);
  for (let col = 0; col < k; col++) {
    let pivot = col;
    for (let r = col + 1; r < k; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    if (Math.abs(a[pivot]![col]!) < 1e-12) return null;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let r = 0; r < k; r++) {
      if (r === col) continue;
      const f = a[r]![col]! / a[col]![col]!;
      for (let c = col; c <= k; c++) a[r]![c]! -= f * a[col]![c]!;
    }
  }
  return a.map((row, i) => row[k]! / row[i]!);
}

/**
 * A κ whose term κ·N(N−1) moves the denominator at the largest measured load by less than this share moves
 * the fitted throughput there by less than it too: below what a step's throughput can resolve, so the data
 * show no retrograde region and κ is taken as 0. (For a small σ this means a predicted peak more than about
 * ten times beyond the measured steps — a fit once put it at 141 million clients from κ ≈ 5e-16.)
 */
export const NEGLIGIBLE_KAPPA_SHARE = 0.01;

/**
 * Fits the Universal Scalability Law. With N/X(N) = a + b(N−1) + c·N(N−1) the model is linear in
 * a = 1/λ, b = σ/λ, c = κ/λ; σ and κ are kept ≥ 0 (refitting without a term that came out negative).
 */
export function fitUsl(points: readonly ThroughputPoint[]): UslFit | null {
  const usable = points.filter((p) => p.clients > 0 && p.throughput > 0);
  if (usable.length < 3) return null;
  const y = usable.map((p) => p.clients / p.throughput);
  const terms = (withSigma: boolean, withKappa: boolean) =>
    usable.map((p) => [1, ...(withSigma ? [p.clients - 1] : []), ...(withKappa ? [p.clients * (p.clients - 1)] : [])]);
  const maxMeasured = Math.max(...usable.map((p) => p.clients));
  const solve = (candidates: readonly (readonly [boolean, boolean])[]) => {
    for (const [s, k] of candidates) {
      const beta = leastSquares(terms(s, k), y);
      if (!beta) continue;
      const [a, ...rest] = beta;
      const b = s ? rest.shift()! : 0;
      const c = k ? rest.shift()! : 0;
      if (a! > 0 && b >= 0 && c >= 0) return { a: a!, b, c };
    }
    return null;
  };
  let fit = solve([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ]);
  if (!fit) return null;
  let droppedKappa: number | undefined;
  const kappaShare = (f: { a: number; b: number; c: number }) =>
    (f.c * maxMeasured * (maxMeasured - 1)) / (f.a + f.b * (maxMeasured - 1));
  if (fit.c > 0 && kappaShare(fit) < NEGLIGIBLE_KAPPA_SHARE) {
    const withoutKappa = solve([
      [true, false],
      [false, false],
    ]);
    if (withoutKappa) {
      droppedKappa = fit.c / fit.a;
      fit = withoutKappa;
    }
  }
  const lambda = 1 / fit.a;
  const sigma = fit.b / fit.a;
  const kappa = fit.c / fit.a;
  const predict = (n: number) => (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1));
  const mean = usable.reduce((s, p) => s + p.throughput, 0) / usable.length;
  const ssTot = usable.reduce((s, p) => s + (p.throughput - mean) ** 2, 0);
  const ssRes = usable.reduce((s, p) => s + (p.throughput - predict(p.clients)) ** 2, 0);
  const rSquared = ssTot > 0 ? Math.max(0, 1 - ssRes / ssTot) : 0;
  const peakClients = kappa > 0 ? Math.sqrt(Math.max(0, 1 - sigma) / kappa) : null;
  // A good fit may be trusted a quarter beyond the measured steps; a poor one not beyond them at all.
  const trustedUpToClients = Math.round(rSquared >= 0.9 ? maxMeasured * 1.25 : maxMeasured);
  return {
    lambda,
    sigma,
    kappa,
    rSquared,
    peakClients,
    peakThroughputPerSec: peakClients === null ? null : predict(peakClients),
    trustedUpToClients,
    ...(droppedKappa === undefined ? {} : { droppedKappa }),
  };
}
