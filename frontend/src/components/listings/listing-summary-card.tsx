import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { Badge } from '@/components/ui/badge'
import { Card, CardContent, CardFooter } from '@/components/ui/card'
import { useTranslation } from '@/lib/i18n/i18n'
import { term } from '@/lib/i18n/terms'
import { listingHref, type ListingSummary } from '@/lib/listing-summary'

import { ListingActions } from './listing-actions'
import { LocationLine, PriceTag } from './listing-facts'
import { ListingImage } from './listing-image'

/** The badge of a summary: purpose for properties and lands, category for products and services. */
function useSummaryTag(summary: ListingSummary): string | null {
  const { t } = useTranslation()
  switch (summary.kind) {
    case 'property':
      return summary.tag === 'Sale' ? t('property.forSale') : t('property.rental')
    case 'land':
      return summary.tag === 'Lease' ? t('land.forLease') : t('land.forSale')
    case 'product':
      return term(summary.tag || 'Other')
    case 'service':
      return summary.tag === 'Drone' ? t('services.drone') : summary.tag === 'Moving' ? t('services.moving') : summary.tag
  }
}

/** The title a summary shows: its own, or the spec's fallback. */
export function useSummaryTitle(summary: ListingSummary): string {
  const { t } = useTranslation()
  return summary.title || t('property.untitled')
}

/**
 * A compact card of a listing of any kind (search results, saved listings):
 * photo, badge, title linking to the detail page, location and price. The
 * listing actions (the heart) sit over the photo; `footer` holds extra
 * buttons such as Remove.
 */
export function ListingSummaryCard({ summary, footer }: { summary: ListingSummary; footer?: ReactNode }) {
  const { t } = useTranslation()
  const tag = useSummaryTag(summary)
  const title = useSummaryTitle(summary)
  return (
    <Card className="relative h-full gap-3 overflow-hidden pt-0 pb-4">
      <ListingActions kind={summary.kind} id={summary.id} title={title} variant="card" />
      <ListingImage path={summary.image} width={400} alt="" className="aspect-[4/3] w-full" />
      <CardContent className="flex flex-1 flex-col gap-1.5 px-4">
        {tag && (
          <Badge variant="outline" className="self-start">
            {tag}
          </Badge>
        )}
        <h3 className="line-clamp-2 font-semibold">
          <Link to={listingHref(summary.kind, summary.id)} className="hover:text-primary hover:underline">
            {title}
          </Link>
        </h3>
        <LocationLine className="text-sm">{summary.location ?? t('property.noLocation')}</LocationLine>
        {summary.price !== null && <PriceTag amount={summary.price} perMonth={summary.perMonth} />}
      </CardContent>
      {footer && <CardFooter className="px-4">{footer}</CardFooter>}
    </Card>
  )
}
