import { Link } from 'react-router'

import { ListingActions } from '@/components/listings/listing-actions'
import { LocationLine, PriceTag } from '@/components/listings/listing-facts'
import { ListingImage } from '@/components/listings/listing-image'
import { Badge } from '@/components/ui/badge'
import { Card, CardContent } from '@/components/ui/card'
import { detailPath } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'
import { term } from '@/lib/i18n/terms'

import type { Product } from '../api/get-products'

/** A product in a grid: photo, condition (New/Used), category, price, name, description, location. */
export function ProductCard({ product }: { product: Product }) {
  const { t } = useTranslation()
  const isNew = product.status === 'New'
  return (
    <Card className="relative h-full overflow-hidden pt-0">
      <ListingActions kind="product" id={product.id} title={product.name} variant="card" />
      <Link to={detailPath.product(product.id)} className="group flex flex-col gap-3">
        <ListingImage path={product.images?.[0]} width={400} alt={product.name} className="aspect-square w-full" />
        <CardContent className="flex flex-col gap-2">
          <div className="flex flex-wrap gap-2">
            <Badge variant={isNew ? 'success' : 'warning'}>{isNew ? t('product.new') : t('product.used')}</Badge>
            <Badge variant="outline">{term(product.category || 'Other')}</Badge>
          </div>
          <PriceTag amount={product.price} className="text-lg" />
          <h3 className="line-clamp-1 font-semibold">{product.name}</h3>
          <p className="line-clamp-2 text-sm text-muted-foreground">{product.description?.trim() || t('property.noDescription')}</p>
          <LocationLine className="text-sm">{product.location?.trim() || t('property.noLocation')}</LocationLine>
        </CardContent>
      </Link>
    </Card>
  )
}
