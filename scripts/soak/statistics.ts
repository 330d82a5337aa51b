/**
 * The arithmetic of the soaks' reports: megabytes, quantiles, and the least-squares line a series
 * of memory samples grows along.
 */

/** `bytes` in MB (MiB), to one decimal. */
export function megabytes(bytes: number): number {
  return round(bytes / 1024 / 1024, 1);
}

/** The `q` quantile (0..1) of `values`, to one decimal, or 0 when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!, 1);
}

export interface Growth {
  /** Slope of the least-squares line, per hour, in the series' unit. */
  perHour: number;
  /** Standard error of that slope, per hour: how far noise alone moves it. */
  standardError: number;
  /** Samples the line was fitted to. */
  samples: number;
  /** Time between the first and the last of them, minutes. */
  spanMinutes: number;
  /** The line's value at the first and the last sample. */
  from: number;
  to: number;
}

/**
 * The least-squares line through `points` (`t` in seconds), as growth per hour; null with fewer
 * than 3 points or none apart in time.
 */
export function fitGrowth(points: readonly { t: number; value: number }[]): Growth | null {
  const n = points.length;
  if (n < 3) return null;
  const meanT = points.reduce((sum, point) => sum + point.t, 0) / n;
  const meanValue = points.reduce((sum, point) => sum + point.value, 0) / n;
  let spread = 0;
  let covariance = 0;
  for (const point of points) {
    spread += (point.t - meanT) ** 2;
    covariance += (point.t - meanT) * (point.value - meanValue);
  }
  if (spread === 0) return null;
  const slope = covariance / spread;
  const residuals = points.reduce((sum, point) => sum + (point.value - (meanValue + slope * (point.t - meanT))) ** 2, 0);
  const first = points[0]!.t;
  const last = points[n - 1]!.t;
  return {
    perHour: round(slope * 3600, 2),
    standardError: round(Math.sqrt(residuals / (n - 2) / spread) * 3600, 2),
    samples: n,
    spanMinutes: round((last - first) / 60, 1),
    from: round(meanValue + slope * (first - meanT), 1),
    to: round(meanValue + slope * (last - meanT), 1),
  };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
