// The what-if plot: $/h over simulated time, one stepped line per variant, rendered to
// SVG by ECharts' server-side renderer (no DOM, no canvas), so the CLI writes a file any
// browser or document can show.

import * as echarts from 'echarts';
import type { VariantResult } from '../sim/policy-variants.js';

const WIDTH = 960;
const HEIGHT = 480;

export function costPlotSvg(results: readonly VariantResult[], title: string): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({
      animation: false,
      title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
      legend: { top: 28, data: results.map((r) => r.name) },
      grid: { left: 70, right: 30, top: 70, bottom: 50 },
      xAxis: { type: 'value', name: 'hours', nameLocation: 'middle', nameGap: 28, min: 0, max: Math.max(...results.map((r) => (r.costSeries.at(-1)?.t ?? 0) / 3_600_000)) },
      yAxis: { type: 'value', name: '$/h', nameLocation: 'middle', nameGap: 50 },
      series: results.map((r) => ({
        name: r.name,
        type: 'line',
        step: 'end',
        showSymbol: false,
        lineStyle: { width: 1.5 },
        data: r.costSeries.map((s) => [Math.round((s.t / 3_600_000) * 1000) / 1000, s.costPerHour]),
      })),
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
