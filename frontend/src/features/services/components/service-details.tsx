import { BadgeCheckIcon, StarIcon } from 'lucide-react'
import type { ReactNode } from 'react'

import { DetailLayout, DetailStatus, ListingOwner, ShareButton, SimilarListings } from '@/components/listings/detail-parts'
import { ListingActions } from '@/components/listings/listing-actions'
import { LocationLine } from '@/components/listings/listing-facts'
import { ListingImage } from '@/components/listings/listing-image'
import { Badge } from '@/components/ui/badge'
import { useDocumentMeta } from '@/lib/document-meta'
import type { Json } from '@/lib/database.types'
import { formatDate, formatKES } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { imageUrl } from '@/lib/storage'

import { useService, useSimilarServices } from '../api/get-service'
import { jsonList, parsePricing, type ServiceProvider } from '../api/get-services'
import { ServiceCard } from './service-card'

type Review = { author?: string; rating?: number; comment?: string; date?: string }

function firstText(entry: Record<string, unknown>, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = entry[key]
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  return undefined
}

/**
 * The reviews column as a list (spec §3: a list, possibly JSON text), read
 * as defensively as the pricing: a review is a comment string or an object
 * with any of author/name/user, rating (0-5), comment/text/review and a
 * date; anything else is skipped.
 */
function parseReviews(reviews: Json | null | undefined): Review[] {
  return jsonList(reviews).flatMap((entry): Review[] => {
    if (typeof entry === 'string') return entry.trim() ? [{ comment: entry.trim() }] : []
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return []
    const record = entry as Record<string, unknown>
    const rating = typeof record.rating === 'number' ? record.rating : Number(record.rating)
    const review: Review = {
      author: firstText(record, ['author', 'name', 'user', 'user_name', 'reviewer']),
      rating: Number.isFinite(rating) && rating >= 0 && rating <= 5 && record.rating !== null && record.rating !== '' ? rating : undefined,
      comment: firstText(record, ['comment', 'text', 'review', 'content', 'body']),
      date: firstText(record, ['date', 'created_at', 'createdAt']),
    }
    return review.comment || review.rating !== undefined ? [review] : []
  })
}

/** The provider's reviews in their stored order, or 'No reviews yet'. */
function ServiceReviews({ reviews }: { reviews: Json | null | undefined }) {
  const { t } = useTranslation()
  const list = parseReviews(reviews)
  return (
    <section className="mt-10">
      <h2 className="mb-3 text-xl font-semibold">{t('detail.reviews')}</h2>
      {list.length === 0 ? (
        <p className="text-muted-foreground">{t('detail.noReviews')}</p>
      ) : (
        <ul className="flex flex-col gap-4">
          {list.map((review, index) => {
            const date = review.date && !Number.isNaN(Date.parse(review.date)) ? formatDate(review.date) : undefined
            return (
              <li key={index} className="rounded-lg border p-4">
                <div className="flex flex-wrap items-center gap-2 text-sm">
                  <span className="font-medium">{review.author ?? t('detail.reviewer')}</span>
                  {review.rating !== undefined && (
                    <span className="flex items-center gap-1" aria-label={t('detail.reviewRating', { rating: review.rating })}>
                      <StarIcon className="size-4 text-primary" aria-hidden="true" />
                      <span aria-hidden="true">{review.rating.toFixed(1)}</span>
                    </span>
                  )}
                  {date && <span className="text-muted-foreground">{date}</span>}
                </div>
                {review.comment && <p className="mt-2 whitespace-pre-line text-muted-foreground">{review.comment}</p>}
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

/** /service-provider/:id: profile photo, verified badge, every service and price, reviews, owner (KYC badge, contact), share, similar providers. */
export function ServiceDetails({ id, ownerNotice }: { id: string; ownerNotice?(provider: ServiceProvider): ReactNode }) {
  const { t } = useTranslation()
  const query = useService(id)
  const provider = query.data
  const similar = useSimilarServices(provider)
  const category = provider?.category === 'Drone' ? t('services.tabDrone') : t('services.tabMoving')
  const location = provider?.location?.trim() || t('property.noLocation')
  useDocumentMeta(
    provider ? `${t('meta.serviceTitle', { name: provider.name, category, location })} | ${t('app.name')}` : undefined,
    provider ? `${provider.name}: ${provider.services.join(', ')}. ${provider.description ?? ''}`.slice(0, 160) : undefined,
    { image: provider?.profileimage ? imageUrl(provider.profileimage) : undefined, type: 'article' },
  )

  if (query.isPending) return <DetailStatus status="loading" notFound="" failed="" />
  if (query.isError) return <DetailStatus status="error" notFound="" failed={t('services.loadFailed')} />
  if (!provider) return <DetailStatus status="missing" notFound={t('detail.serviceNotFound')} failed="" />

  const pricing = parsePricing(provider.pricing)
  return (
    <DetailLayout
      notice={ownerNotice?.(provider)}
      media={<ListingImage path={provider.profileimage} width={1200} alt={provider.name} loading="eager" className="aspect-[16/10] w-full rounded-xl" />}
      description={provider.description?.trim() || t('property.noDescription')}
      similar={<SimilarListings items={similar.data} renderItem={(item) => <ServiceCard provider={item} />} />}
      aside={
        <>
          <div className="flex flex-wrap items-center gap-2">
            <Badge>{category}</Badge>
            {provider.verified ? (
              <Badge variant="secondary">
                <BadgeCheckIcon aria-hidden="true" className="size-3" />
                {t('services.verified')}
              </Badge>
            ) : (
              <Badge variant="outline">{t('detail.pendingVerification')}</Badge>
            )}
            <span className="flex items-center gap-1 text-sm">
              <StarIcon className="size-4 text-primary" aria-hidden="true" />
              {provider.rating ? provider.rating.toFixed(1) : t('services.newRating')}
            </span>
          </div>
          <h1 className="text-3xl font-bold tracking-tight">{provider.name}</h1>
          <LocationLine>{location}</LocationLine>
          <ListingOwner kind="service" id={provider.id} ownerId={provider.userid} />
          <ListingActions kind="service" id={provider.id} title={provider.name} variant="detail" />
          <ShareButton title={provider.name} />
        </>
      }
    >
      <section className="mt-10 grid gap-8 md:grid-cols-2">
        <div>
          <h2 className="mb-3 text-xl font-semibold">{t('services.servicesLabel')}</h2>
          <ul className="flex flex-wrap gap-2">
            {provider.services.map((service) => (
              <li key={service}>
                <Badge variant="secondary">{service}</Badge>
              </li>
            ))}
          </ul>
        </div>
        {pricing.length > 0 && (
          <div>
            <h2 className="mb-3 text-xl font-semibold">{t('services.pricingLabel')}</h2>
            <table className="w-full text-sm">
              <tbody>
                {pricing.map((entry) => (
                  <tr key={entry.title} className="border-b">
                    <th scope="row" className="py-2 text-left font-normal">
                      {entry.title}
                    </th>
                    <td className="py-2 text-muted-foreground">{entry.duration}</td>
                    <td className="py-2 text-right font-semibold">{formatKES(entry.price)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <ServiceReviews reviews={provider.reviews} />
    </DetailLayout>
  )
}
