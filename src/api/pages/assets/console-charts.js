// Small SVG bar charts for the console's privacy section: drawn with the DOM (no library), each with a
// text alternative (role="img" and a label saying what it shows) and the figures in a table beside it.
const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/**
 * A bar chart of `values` (oldest left), `label` its text alternative, `unit` the axis's unit. Heights are
 * relative to the largest value, which the chart states at its top.
 */
export function barChart(values, { label, unit, color = '#0a4fa3' }) {
  const w = 320;
  const h = 120;
  const pad = 24;
  const chart = svg('svg', { viewBox: `0 0 ${w} ${h}`, role: 'img', 'aria-label': label });
  const title = svg('title', {});
  title.textContent = label;
  chart.append(title);
  const max = Math.max(1, ...values);
  chart.append(svg('line', { x1: pad, y1: h - pad, x2: w - 4, y2: h - pad, stroke: '#4a4a4a', 'stroke-width': 1 }));
  const top = svg('text', { x: 2, y: 12, 'font-size': 11, fill: '#1a1a1a' });
  top.textContent = `max ${max} ${unit}`;
  chart.append(top);
  const slot = (w - pad - 4) / Math.max(values.length, 1);
  values.forEach((v, i) => {
    const bh = ((h - 2 * pad) * v) / max;
    chart.append(svg('rect', { x: pad + i * slot + slot * 0.15, y: h - pad - bh, width: Math.max(slot * 0.7, 1), height: bh, fill: color }));
  });
  const axis = svg('text', { x: pad, y: h - 6, 'font-size': 11, fill: '#1a1a1a' });
  axis.textContent = values.length ? `${values.length} release${values.length === 1 ? '' : 's'}, oldest left` : 'no release yet';
  chart.append(axis);
  return chart;
}
