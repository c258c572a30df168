// How the dashboard writes numbers: '–' for unknown values, en-US grouping, short units.
export const fmt = {
  int: (v) => (v === null || v === undefined || Number.isNaN(v) ? '–' : Math.round(v).toLocaleString('en-US')),
  num: (v, digits = 1) => (v === null || v === undefined || !Number.isFinite(v) ? '–'
                           : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })),
  ms: (v) => {
    if (v === null || v === undefined || !Number.isFinite(v)) return '–';
    if (v >= 10000) return `${(v / 1000).toFixed(1)} s`;
    if (v >= 100) return `${Math.round(v)} ms`;
    return `${v.toFixed(1)} ms`;
  },
  mib: (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(0)} MiB` : '–'),
  pct: (v) => (Number.isFinite(v) ? `${v.toFixed(v < 10 ? 1 : 0)} %` : '–'),
};
