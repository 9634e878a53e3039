import { StarIcon } from 'lucide-react'
import { Link } from 'react-router'

import { ListingActions } from '@/components/listings/listing-actions'
import { LocationLine } from '@/components/listings/listing-facts'
import { ListingImage } from '@/components/listings/listing-image'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardFooter } from '@/components/ui/card'
import { SERVICE_CARD_PRICING, SERVICE_CARD_SERVICES } from '@/config/listings'
import { detailPath } from '@/config/paths'
import { formatKSh } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'

import { parsePricing, type ServiceProvider } from '../api/get-services'

/** Card rules (spec §9): at most 3 services then '+N more', and 2 pricing entries. */
export function serviceCardView(provider: ServiceProvider) {
  const services = provider.services ?? []
  return {
    services: services.slice(0, SERVICE_CARD_SERVICES),
    moreServices: Math.max(0, services.length - SERVICE_CARD_SERVICES),
    pricing: parsePricing(provider.pricing).slice(0, SERVICE_CARD_PRICING),
  }
}

/** A service provider: photo, category, rating ('New' without one), services, prices in KSh, View Profile. */
export function ServiceCard({ provider }: { provider: ServiceProvider }) {
  const { t } = useTranslation()
  const view = serviceCardView(provider)
  return (
    <Card className="relative h-full overflow-hidden pt-0">
      <ListingActions kind="service" id={provider.id} title={provider.name} variant="card" />
      <ListingImage path={provider.profileimage} width={400} alt={provider.name} className="aspect-video w-full" />
      <CardContent className="flex flex-1 flex-col gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <Badge>{provider.category === 'Drone' ? t('services.drone') : t('services.moving')}</Badge>
          {provider.verified && <Badge variant="secondary">{t('services.verified')}</Badge>}
          <span className="ml-auto flex items-center gap-1 text-sm">
            <StarIcon className="size-4 text-primary" aria-hidden="true" />
            {provider.rating ? provider.rating.toFixed(1) : t('services.newRating')}
          </span>
        </div>
        <h3 className="font-semibold">{provider.name}</h3>
        <LocationLine className="text-sm">{provider.location?.trim() || t('property.noLocation')}</LocationLine>
        {view.services.length > 0 && (
          <ul aria-label={t('services.servicesLabel')} className="flex flex-wrap gap-1">
            {view.services.map((service) => (
              <li key={service}>
                <Badge variant="secondary">{service}</Badge>
              </li>
            ))}
            {view.moreServices > 0 && (
              <li>
                <Badge variant="outline">{t('services.more', { count: view.moreServices })}</Badge>
              </li>
            )}
          </ul>
        )}
        {view.pricing.length > 0 && (
          <dl aria-label={t('services.pricingLabel')} className="grid grid-cols-[1fr_auto] gap-x-2 text-sm">
            {view.pricing.map((entry) => (
              <div key={entry.title} className="contents">
                <dt className="text-muted-foreground">{entry.title}</dt>
                <dd className="font-medium">
                  {formatKSh(entry.price)}
                  {entry.duration ? ` / ${entry.duration}` : ''}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </CardContent>
      <CardFooter>
        <Button asChild variant="outline" className="w-full">
          <Link to={detailPath.service(provider.id)}>{t('services.viewProfile')}</Link>
        </Button>
      </CardFooter>
    </Card>
  )
}
