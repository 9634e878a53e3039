import { PhoneIcon, Share2Icon, ShieldCheckIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { Link, useLocation } from 'react-router'

import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { paths, type LoginRedirectState } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useTranslation } from '@/lib/i18n/i18n'
import type { ListingKind } from '@/lib/listing-fees'
import { useListingOwner } from '@/lib/listing-owner'

import { ListingContact } from './listing-contact'

/** Shares the page through the system sheet, or copies its link. */
function ShareButton({ title }: { title: string }) {
  const { t } = useTranslation()
  const share = async () => {
    const url = window.location.href
    try {
      if (navigator.share) {
        await navigator.share({ title, url })
        return
      }
      await navigator.clipboard.writeText(url)
      toast({ title: t('detail.linkCopied'), variant: 'success' })
    } catch {
      // The user closed the share sheet; nothing to report.
    }
  }
  return (
    <Button variant="outline" onClick={share}>
      <Share2Icon aria-hidden="true" />
      {t('detail.share')}
    </Button>
  )
}

/**
 * The owner's phone for signed-in users; a sign-in link (remembering this
 * page) for visitors, whom the server never gives the contact.
 */
function OwnerContact({ phone }: { phone: string | null | undefined }) {
  const { t } = useTranslation()
  const { status } = useAuth()
  const location = useLocation()
  if (status === 'signed-out') {
    const state: LoginRedirectState = { from: location.pathname }
    return (
      <p className="rounded-lg border bg-muted/50 p-4 text-sm">
        <Link to={paths.login} state={state} className="font-medium text-primary hover:underline">
          {t('detail.signInForContact')}
        </Link>
      </p>
    )
  }
  if (status !== 'signed-in' || !phone) return null
  return (
    <Button asChild size="lg">
      <a href={`tel:${phone.replace(/\s+/g, '')}`}>
        <PhoneIcon aria-hidden="true" />
        {t('detail.call', { phone })}
      </a>
    </Button>
  )
}

/** 'KYC verified': the listing's owner has an approved identity check. */
function KycVerifiedBadge() {
  const { t } = useTranslation()
  return (
    <Badge variant="secondary" title={t('detail.kycVerifiedHint')}>
      <ShieldCheckIcon aria-hidden="true" className="size-3" />
      {t('detail.kycVerified')}
    </Badge>
  )
}

/**
 * The owner part of a detail page (get_listing_owner): the KYC-verified
 * badge when the owner passed KYC, then the contact for signed-in users or
 * the sign-in link for visitors, and the page's contact action (e.g.
 * "Message the owner", see ListingContactProvider) when `ownerId` is given.
 */
function ListingOwner({ kind, id, ownerId }: { kind: ListingKind; id: string; ownerId?: string }) {
  const owner = useListingOwner(kind, id).data
  return (
    <>
      {owner?.kyc_verified && <KycVerifiedBadge />}
      <OwnerContact phone={owner?.contact} />
      {ownerId && <ListingContact kind={kind} id={id} ownerId={ownerId} />}
    </>
  )
}

/** Loading, missing and failed states of a detail page. */
function DetailStatus({ status, notFound, failed }: { status: 'loading' | 'missing' | 'error'; notFound: string; failed: string }) {
  const { t } = useTranslation()
  if (status === 'loading') return <Spinner label={t('app.loading')} className="py-24" />
  return (
    <div role={status === 'error' ? 'alert' : undefined} className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-2xl font-bold">{status === 'error' ? failed : notFound}</h1>
      <Button asChild variant="outline" className="mt-6">
        <Link to={paths.home}>{t('comingSoon.backHome')}</Link>
      </Button>
    </div>
  )
}

/** 'Similar listings' under a detail page: up to four cards, or nothing. */
function SimilarListings<T extends { id: string }>({ items, renderItem }: { items: readonly T[] | undefined; renderItem(item: T): ReactNode }) {
  const { t } = useTranslation()
  if (!items?.length) return null
  return (
    <section className="mt-12">
      <h2 className="mb-4 text-xl font-semibold">{t('detail.similar')}</h2>
      <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {items.map((item) => (
          <li key={item.id}>{renderItem(item)}</li>
        ))}
      </ul>
    </section>
  )
}

/**
 * The frame of a listing's detail page: an optional notice (e.g. for the
 * owner), media beside the headline facts (`aside`), then the description,
 * any further sections and similar listings.
 */
function DetailLayout({
  notice,
  media,
  aside,
  description,
  children,
  similar,
}: {
  notice?: ReactNode
  media: ReactNode
  aside: ReactNode
  description: string
  children?: ReactNode
  similar?: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <article className="mx-auto max-w-6xl px-4 py-10">
      {notice}
      <div className="grid gap-8 lg:grid-cols-[3fr_2fr]">
        {media}
        <div className="flex flex-col gap-4">{aside}</div>
      </div>
      <section className="mt-10">
        <h2 className="mb-2 text-xl font-semibold">{t('detail.description')}</h2>
        <p className="whitespace-pre-line text-muted-foreground">{description}</p>
      </section>
      {children}
      {similar}
    </article>
  )
}

export { DetailLayout, DetailStatus, KycVerifiedBadge, ListingOwner, OwnerContact, ShareButton, SimilarListings }
