import type { ReactNode } from 'react'

import { DetailLayout, DetailStatus, ListingOwner, ShareButton, SimilarListings } from '@/components/listings/detail-parts'
import { Gallery } from '@/components/listings/gallery'
import { ListingActions } from '@/components/listings/listing-actions'
import { Fact, LocationLine, PriceTag } from '@/components/listings/listing-facts'
import { Badge } from '@/components/ui/badge'
import { useDocumentMeta } from '@/lib/document-meta'
import { formatDate, formatKES } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { term } from '@/lib/i18n/terms'
import { imageUrl } from '@/lib/storage'

import type { Land } from '../api/get-lands'
import { useLand, useSimilarLands } from '../api/get-land'
import { formatSize, LandBadges, LandCard } from './land-card'

/** /lands/:id: gallery, all fields, every feature, owner (KYC badge, the owner's phone), share, similar land. */
export function LandDetails({ id, ownerNotice }: { id: string; ownerNotice?(land: Land): ReactNode }) {
  const { t } = useTranslation()
  const query = useLand(id)
  const land = query.data
  const similar = useSimilarLands(land)
  const isLease = land?.purpose === 'Lease'
  useDocumentMeta(
    land ? `${t('meta.landTitle', { title: land.title, type: term(land.type), location: land.location })} | ${t('app.name')}` : undefined,
    land ? `${isLease ? t('land.forLease') : t('land.forSale')}: ${land.title}, ${land.location}. ${formatKES(land.price)}. ${land.description ?? ''}`.slice(0, 160) : undefined,
    { image: land?.images?.[0] ? imageUrl(land.images[0]) : undefined, type: 'article' },
  )

  if (query.isPending) return <DetailStatus status="loading" notFound="" failed="" />
  if (query.isError) return <DetailStatus status="error" notFound="" failed={t('lands.loadFailed')} />
  if (!land) return <DetailStatus status="missing" notFound={t('detail.landNotFound')} failed="" />

  const size = formatSize(land.size, land.sizeUnit)
  return (
    <DetailLayout
      notice={ownerNotice?.(land)}
      media={<Gallery images={land.images} alt={land.title} />}
      description={land.description?.trim() || t('property.noDescription')}
      similar={<SimilarListings items={similar.data} renderItem={(item) => <LandCard land={item} />} />}
      aside={
        <>
          <LandBadges land={land} />
          <h1 className="text-3xl font-bold tracking-tight">{land.title}</h1>
          <LocationLine>{land.location}</LocationLine>
          <PriceTag amount={land.price} perMonth={isLease} className="text-3xl" />
          <dl>
            <Fact label={t('lands.typeLabel')}>{term(land.type)}</Fact>
            <Fact label={t('lands.purposeLabel')}>{isLease ? t('land.forLease') : t('land.forSale')}</Fact>
            {size && <Fact label={t('detail.size')}>{size}</Fact>}
            <Fact label={t('detail.listed')}>{formatDate(land.createdAt)}</Fact>
          </dl>
          <ListingOwner kind="land" id={land.id} ownerId={land.userid} />
          <ListingActions kind="land" id={land.id} title={land.title} variant="detail" />
          <ShareButton title={land.title} />
        </>
      }
    >
      {land.features.length > 0 && (
        <section className="mt-6">
          <h2 className="mb-2 text-xl font-semibold">{t('land.features')}</h2>
          <ul className="flex flex-wrap gap-2">
            {land.features.map((feature) => (
              <li key={feature}>
                <Badge variant="secondary">{feature}</Badge>
              </li>
            ))}
          </ul>
        </section>
      )}
    </DetailLayout>
  )
}
