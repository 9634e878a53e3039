import type { ReactNode } from 'react'

import { DetailLayout, DetailStatus, ListingOwner, ShareButton, SimilarListings } from '@/components/listings/detail-parts'
import { Gallery } from '@/components/listings/gallery'
import { ListingActions } from '@/components/listings/listing-actions'
import { Fact, LocationLine, PriceTag } from '@/components/listings/listing-facts'
import { Badge } from '@/components/ui/badge'
import { useDocumentMeta } from '@/lib/document-meta'
import { formatDate } from '@/lib/format'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { imageUrl } from '@/lib/storage'

import type { Property } from '../api/get-properties'
import { useProperty, useSimilarProperties } from '../api/get-property'
import { PropertyCard, propertyDisplay } from './property-card'

const rentPeriods: Record<string, MessageKey> = {
  month: 'listings.perMonth',
  monthly: 'listings.perMonth',
  week: 'listings.perWeek',
  weekly: 'listings.perWeek',
  day: 'listings.perDay',
  daily: 'listings.perDay',
  night: 'listings.perNight',
  nightly: 'listings.perNight',
  year: 'listings.perYear',
  yearly: 'listings.perYear',
  annual: 'listings.perYear',
  annually: 'listings.perYear',
}

/** The rent's period after the price from price_unit ('month' when unset, spec §3), e.g. '/week'; an unknown unit as written. */
function rentSuffix(unit: string | null | undefined, t: ReturnType<typeof useTranslation>['t']): string {
  const clean = (unit ?? '').trim().replace(/^(?:\/|per\s+)/i, '').trim().toLowerCase()
  if (!clean) return t('listings.perMonth')
  const key = rentPeriods[clean] ?? rentPeriods[clean.replace(/s$/, '')]
  return key ? t(key) : `/${clean}`
}

/** /properties/:id: gallery, facts, price with deposit and its rent period (price_unit), owner (KYC badge, contact), share, similar listings. */
export function PropertyDetails({ id, ownerNotice }: { id: string; ownerNotice?(property: Property): ReactNode }) {
  const { t } = useTranslation()
  const query = useProperty(id)
  const property = query.data
  const similar = useSimilarProperties(property)
  const view = property ? propertyDisplay(property, t) : null
  useDocumentMeta(
    view ? `${t('meta.propertyTitle', { title: view.title, type: view.type, location: view.location })} | ${t('app.name')}` : undefined,
    view ? `${view.isRent ? t('property.forRent') : t('property.forSale')}: ${view.title}, ${view.location}. ${view.price}. ${view.description}`.slice(0, 160) : undefined,
    { image: property?.images?.[0] ? imageUrl(property.images[0]) : undefined, type: 'article' },
  )

  if (query.isPending) return <DetailStatus status="loading" notFound="" failed="" />
  if (query.isError) return <DetailStatus status="error" notFound="" failed={t('properties.loadFailed')} />
  if (!property || !view) return <DetailStatus status="missing" notFound={t('detail.propertyNotFound')} failed="" />

  return (
    <DetailLayout
      notice={ownerNotice?.(property)}
      media={<Gallery images={property.images} alt={view.title} />}
      description={view.description}
      similar={<SimilarListings items={similar.data} renderItem={(item) => <PropertyCard property={item} />} />}
      aside={
        <>
          <div className="flex flex-wrap gap-2">
            <Badge>{view.isRent ? t('property.rental') : t('property.forSale')}</Badge>
            <Badge variant="outline">{view.type}</Badge>
            {property.payment_status === 'pending' && <Badge variant="secondary">{t('detail.pendingApproval')}</Badge>}
          </div>
          <h1 className="text-3xl font-bold tracking-tight">{view.title}</h1>
          <LocationLine>{view.location}</LocationLine>
          <PriceTag amount={property.price} suffix={view.isRent ? rentSuffix(property.price_unit, t) : undefined} className="text-3xl" />
          <dl>
            <Fact label={t('detail.type')}>{view.type}</Fact>
            <Fact label={t('detail.purpose')}>{view.isRent ? t('property.forRent') : t('property.forSale')}</Fact>
            {view.deposit && <Fact label={t('detail.deposit')}>{view.deposit}</Fact>}
            <Fact label={t('detail.listed')}>{formatDate(property.created_at)}</Fact>
          </dl>
          <ListingOwner kind="property" id={property.id} ownerId={property.user_id} />
          <ListingActions kind="property" id={property.id} title={view.title} variant="detail" />
          <ShareButton title={view.title} />
        </>
      }
    />
  )
}
