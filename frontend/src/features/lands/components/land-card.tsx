import { RulerIcon } from 'lucide-react'
import { Link } from 'react-router'

import { ListingActions } from '@/components/listings/listing-actions'
import { LocationLine, PriceTag } from '@/components/listings/listing-facts'
import { ListingImage } from '@/components/listings/listing-image'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardFooter } from '@/components/ui/card'
import { LAND_CARD_FEATURES } from '@/config/listings'
import { detailPath } from '@/config/paths'
import { formatNumber } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { term } from '@/lib/i18n/terms'

import type { Land } from '../api/get-lands'

/** The card's feature chips: the first two, then '+N' for the rest (spec §9). */
export function visibleFeatures(features: readonly string[] | null | undefined): { shown: string[]; more: number } {
  const list = features ?? []
  return { shown: list.slice(0, LAND_CARD_FEATURES), more: Math.max(0, list.length - LAND_CARD_FEATURES) }
}

/** Size with its unit (default acres), e.g. '2.5 acres'. */
export function formatSize(size: number | null, unit: string | null | undefined): string | null {
  if (size === null || size === undefined) return null
  return `${formatNumber(Number(size))} ${term(unit || 'acres')}`
}

/** A land listing's purpose and type badges (card and detail page). */
export function LandBadges({ land }: { land: Pick<Land, 'purpose' | 'type'> }) {
  const { t } = useTranslation()
  return (
    <div className="flex flex-wrap gap-2">
      <Badge>{land.purpose === 'Lease' ? t('land.forLease') : t('land.forSale')}</Badge>
      <Badge variant="outline">{term(land.type)}</Badge>
    </div>
  )
}

/** A land listing: first photo, purpose and type badges, price ('/month' for leases), size, two features and '+N'. */
export function LandCard({ land }: { land: Land }) {
  const { t } = useTranslation()
  const { shown, more } = visibleFeatures(land.features)
  const size = formatSize(land.size, land.sizeUnit)
  return (
    <Card className="relative h-full overflow-hidden pt-0">
      <ListingActions kind="land" id={land.id} title={land.title} variant="card" />
      <ListingImage path={land.images?.[0]} width={400} alt={land.title} className="aspect-[4/3] w-full" />
      <CardContent className="flex flex-1 flex-col gap-2">
        <LandBadges land={land} />
        <h3 className="line-clamp-1 font-semibold">{land.title}</h3>
        <LocationLine className="text-sm">{land.location}</LocationLine>
        <PriceTag amount={land.price} perMonth={land.purpose === 'Lease'} className="text-lg" />
        {land.description && <p className="line-clamp-2 text-sm text-muted-foreground">{land.description}</p>}
        {size && (
          <p className="flex items-center gap-1 text-sm">
            <RulerIcon className="size-4" aria-hidden="true" />
            {size}
          </p>
        )}
        {(shown.length > 0 || more > 0) && (
          <ul aria-label={t('land.features')} className="flex flex-wrap gap-1">
            {shown.map((feature) => (
              <li key={feature}>
                <Badge variant="secondary">{feature}</Badge>
              </li>
            ))}
            {more > 0 && (
              <li>
                <Badge variant="outline">+{more}</Badge>
              </li>
            )}
          </ul>
        )}
      </CardContent>
      <CardFooter>
        <Button asChild variant="outline" className="w-full">
          <Link to={detailPath.land(land.id)}>{t('listings.viewDetails')}</Link>
        </Button>
      </CardFooter>
    </Card>
  )
}
