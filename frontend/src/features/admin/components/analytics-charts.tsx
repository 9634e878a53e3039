import { formatNumber } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import type { Analytics } from '../api/analytics'

/**
 * Hand-made SVG charts: a few bars need no chart library, and the route
 * stays small. Each chart is an img with a text summary, and its numbers
 * are also in a table for screen readers.
 */
function DailyBars({ title, summary, series }: { title: string; summary: string; series: { day: string; value: number }[] }) {
  const max = Math.max(1, ...series.map((s) => s.value))
  const width = 600
  const height = 160
  const bar = width / series.length
  return (
    <figure className="flex flex-col gap-2">
      <figcaption className="flex items-baseline justify-between">
        <span className="font-semibold">{title}</span>
        <span className="text-sm text-muted-foreground">{summary}</span>
      </figcaption>
      <svg role="img" aria-label={tA('admin.analytics.chartOf', { title, summary })} viewBox={`0 0 ${width} ${height + 16}`} className="h-44 w-full">
        <line x1={0} y1={height} x2={width} y2={height} className="stroke-border" />
        {series.map((s, i) => {
          const h = (s.value / max) * (height - 8)
          return (
            <rect key={s.day} data-value={s.value} x={i * bar + 1} y={height - h} width={Math.max(1, bar - 2)} height={h} className="fill-primary">
              <title>{`${s.day}: ${s.value}`}</title>
            </rect>
          )
        })}
        <text x={0} y={height + 14} className="fill-muted-foreground text-[10px]">
          {series[0]?.day}
        </text>
        <text x={width} y={height + 14} textAnchor="end" className="fill-muted-foreground text-[10px]">
          {series.at(-1)?.day}
        </text>
      </svg>
    </figure>
  )
}

function HorizontalBars({ title, rows }: { title: string; rows: { label: string; value: number; detail: string }[] }) {
  const max = Math.max(1, ...rows.map((r) => r.value))
  return (
    <figure className="flex flex-col gap-2">
      <figcaption className="font-semibold">{title}</figcaption>
      <svg role="img" aria-label={tA('admin.analytics.chartOf', { title, summary: rows.map((r) => `${r.label} ${r.value}`).join(', ') })} viewBox={`0 0 600 ${rows.length * 36}`} className="w-full">
        {rows.map((r, i) => (
          <g key={r.label} transform={`translate(0 ${i * 36})`}>
            <text x={0} y={20} className="fill-foreground text-[13px]">
              {r.label}
            </text>
            <rect data-value={r.value} x={130} y={6} height={20} width={Math.max(2, (r.value / max) * 380)} className="fill-primary" />
            <text x={130 + Math.max(2, (r.value / max) * 380) + 6} y={20} className="fill-muted-foreground text-[12px]">
              {r.detail}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  )
}

/** The /admin/analytics charts of one admin_analytics result. */
export function AnalyticsCharts({ data }: { data: Analytics }) {
  const { lang } = useAdminTranslation()
  const signupTotal = data.signups.reduce((sum, s) => sum + s.count, 0)
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <DailyBars
        title={tA('admin.analytics.signups')}
        summary={tA('admin.analytics.signupsTotal', { count: formatNumber(signupTotal, lang) })}
        series={data.signups.map((s) => ({ day: s.day, value: s.count }))}
      />
      <DailyBars
        title={tA('admin.analytics.fees')}
        summary={tA('admin.analytics.feesTotal', { amount: formatNumber(data.feesTotal, lang) })}
        series={data.fees.map((s) => ({ day: s.day, value: Math.max(0, s.amount) }))}
      />
      <HorizontalBars
        title={tA('admin.analytics.listings')}
        rows={data.listings.map((l) => ({
          label: tA(`admin.analytics.kind.${l.kind}` as AdminKey),
          value: l.total,
          detail: `${tA('admin.analytics.total')} ${l.total} · ${tA('admin.analytics.active')} ${l.active} · ${tA('admin.analytics.pending')} ${l.pending} · ${tA('admin.analytics.new')} ${l.new}`,
        }))}
      />
      <div className="flex flex-col gap-2">
        <HorizontalBars
          title={tA('admin.analytics.trades')}
          rows={data.trades.map((tr) => ({
            label: tr.currency,
            value: tr.volume,
            detail: `${formatNumber(tr.volume, lang)} · KES ${formatNumber(tr.volumeKes, lang)}`,
          }))}
        />
        <table className="w-full text-sm">
          <caption className="sr-only">{tA('admin.analytics.trades')}</caption>
          <thead>
            <tr className="text-left">
              <th scope="col">{tA('admin.analytics.currency')}</th>
              <th scope="col">{tA('admin.analytics.opened')}</th>
              <th scope="col">{tA('admin.analytics.completed')}</th>
              <th scope="col">{tA('admin.analytics.volume')}</th>
              <th scope="col">{tA('admin.analytics.volumeKes')}</th>
            </tr>
          </thead>
          <tbody>
            {data.trades.map((tr) => (
              <tr key={tr.currency} className="border-t">
                <th scope="row" className="text-left font-normal">
                  {tr.currency}
                </th>
                <td>{formatNumber(tr.trades, lang)}</td>
                <td>{formatNumber(tr.completed, lang)}</td>
                <td>{formatNumber(tr.volume, lang)}</td>
                <td>{formatNumber(tr.volumeKes, lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
