import { Link } from 'react-router'

import { ListingActions } from '@/components/listings/listing-actions'
import { LocationLine, PriceTag } from '@/components/listings/listing-facts'
import { ListingImage } from '@/components/listings/listing-image'
import { Badge } from '@/components/ui/badge'
import { Card, CardContent } from '@/components/ui/card'
import { detailPath } from '@/config/paths'
import { formatKES } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { term } from '@/lib/i18n/terms'

import type { Property } from '../api/get-properties'

/** Display values with the spec's fallbacks for missing fields (§3). */
export function propertyDisplay(property: Property, t: ReturnType<typeof useTranslation>['t']) {
  const purpose = property.purpose || 'Rent'
  return {
    title: property.title?.trim() || t('property.untitled'),
    type: term(property.type || 'Single Room'),
    purpose,
    isRent: purpose === 'Rent',
    location: property.location?.trim() || t('property.noLocation'),
    description: property.description?.trim() || t('property.noDescription'),
    price: formatKES(property.price),
    deposit: purpose === 'Rent' && property.deposit ? formatKES(property.deposit) : null,
  }
}

/** A property in a grid: photo, purpose and type, price ('/month' for rent), deposit for rentals. */
export function PropertyCard({ property }: { property: Property }) {
  const { t } = useTranslation()
  const view = propertyDisplay(property, t)
  return (
    <Card className="relative h-full overflow-hidden pt-0">
      <ListingActions kind="property" id={property.id} title={view.title} variant="card" />
      <Link to={detailPath.property(property.id)} className="group flex flex-col gap-3">
        <ListingImage path={property.images?.[0]} width={400} alt={view.title} className="aspect-[4/3] w-full transition-transform group-hover:scale-[1.02]" />
        <CardContent className="flex flex-col gap-2">
          <div className="flex flex-wrap gap-2">
            <Badge variant={view.isRent ? 'default' : 'secondary'}>{view.isRent ? t('property.rental') : t('property.forSale')}</Badge>
            <Badge variant="outline">{view.type}</Badge>
          </div>
          <PriceTag amount={property.price} perMonth={view.isRent} className="text-lg" />
          <h3 className="line-clamp-1 font-semibold">{view.title}</h3>
          <p className="line-clamp-2 text-sm text-muted-foreground">{view.description}</p>
          <LocationLine className="text-sm">{view.location}</LocationLine>
          {view.deposit && <p className="text-sm">{t('property.deposit', { amount: view.deposit })}</p>}
        </CardContent>
      </Link>
    </Card>
  )
}
