import {
  BadgeCheckIcon,
  BuildingIcon,
  CoinsIcon,
  MapPinIcon,
  SearchIcon,
  ShieldCheckIcon,
  SmartphoneIcon,
  TruckIcon,
  UsersIcon,
} from 'lucide-react'
import { lazy, Suspense, useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { landingLocations, landingPropertyTypes } from '@/config/listings'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

// The signed-in dashboard is its own chunk, loaded only for a signed-in user
// (the landing route's JS budget).
const HomeDashboard = lazy(() =>
  import('@/features/dashboard/components/lazy-home-dashboard').then((module) => ({ default: module.LazyHomeDashboard })),
)

/** Where a landing type tile leads: a property type, or the commercial group. */
export function propertyTileLink(type: string): string {
  return type === 'Commercial'
    ? `${paths.properties}?category=Commercial`
    : `${paths.properties}?type=${encodeURIComponent(type)}`
}

const typeLabels: Record<(typeof landingPropertyTypes)[number], MessageKey> = {
  'Single Room': 'propertyType.singleRoom',
  Bedsitter: 'propertyType.bedsitter',
  'One Bedroom': 'propertyType.oneBedroom',
  'Two Bedroom': 'propertyType.twoBedroom',
  'Three Bedroom': 'propertyType.threeBedroom',
  Commercial: 'propertyType.commercial',
}

const benefits: readonly { icon: typeof ShieldCheckIcon; title: MessageKey; body: MessageKey }[] = [
  { icon: ShieldCheckIcon, title: 'home.benefitVerifiedTitle', body: 'home.benefitVerifiedBody' },
  { icon: CoinsIcon, title: 'home.benefitPricingTitle', body: 'home.benefitPricingBody' },
  { icon: SmartphoneIcon, title: 'home.benefitMobileTitle', body: 'home.benefitMobileBody' },
]

const testimonials: readonly { quote: MessageKey; name: string; place: string }[] = [
  { quote: 'home.testimonial1', name: 'Achieng O.', place: 'Kisumu' },
  { quote: 'home.testimonial2', name: 'Brian K.', place: 'Nairobi' },
  { quote: 'home.testimonial3', name: 'Fatuma H.', place: 'Mombasa' },
]

function NewsletterForm() {
  const { t } = useTranslation()
  const [email, setEmail] = useState('')

  // Spec §2: the newsletter makes no call, it only thanks the visitor.
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (!email.trim()) {
      toast({ title: t('home.newsletterEmpty'), variant: 'destructive' })
      return
    }
    toast({ title: t('home.newsletterThanks'), variant: 'success' })
    setEmail('')
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex w-full max-w-md flex-col gap-2 sm:flex-row">
      <label htmlFor="newsletter-email" className="sr-only">
        {t('home.newsletterEmailLabel')}
      </label>
      <Input
        id="newsletter-email"
        type="email"
        placeholder={t('home.newsletterPlaceholder')}
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <Button type="submit">{t('home.newsletterSubmit')}</Button>
    </form>
  )
}

/** `/home`: the landing page and the signed-in user's start page. */
export function HomeRoute() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { user } = useAuth()
  const [query, setQuery] = useState('')
  useDocumentMeta(`${t('app.name')} - ${t('meta.rootTitle')}`, t('meta.rootDescription'))

  const onSearch = (event: FormEvent) => {
    event.preventDefault()
    navigate(`${paths.properties}?query=${encodeURIComponent(query.trim())}`)
  }

  return (
    <>
      <section className="bg-accent/40">
        <div className="mx-auto flex max-w-7xl flex-col gap-6 px-4 py-16 sm:py-24">
          <h1 className="text-4xl font-bold tracking-tight sm:text-5xl">
            <span className="text-primary">{t('app.name')}</span> — {t('app.tagline')}
          </h1>
          <p className="max-w-2xl text-lg text-muted-foreground">{t('home.intro')}</p>
          <form role="search" onSubmit={onSearch} className="flex max-w-xl gap-2">
            <label htmlFor="home-search" className="sr-only">
              {t('home.searchLabel')}
            </label>
            <Input
              id="home-search"
              type="search"
              placeholder={t('home.searchPlaceholder')}
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              className="h-11 bg-background"
            />
            <Button type="submit" size="lg" className="h-11">
              <SearchIcon aria-hidden="true" />
              {t('home.searchButton')}
            </Button>
          </form>
        </div>
      </section>

      {user && (
        <Suspense fallback={null}>
          <HomeDashboard userId={user.id} />
        </Suspense>
      )}

      <section aria-labelledby="types-heading" className="mx-auto max-w-7xl px-4 py-12">
        <h2 id="types-heading" className="mb-6 text-2xl font-bold">
          {t('home.typesTitle')}
        </h2>
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
          {landingPropertyTypes.map((type) => (
            <li key={type}>
              <Link
                to={propertyTileLink(type)}
                className="flex h-full flex-col items-center gap-2 rounded-lg border bg-card p-4 text-center text-sm font-medium hover:border-primary"
              >
                <BuildingIcon className="size-6 text-primary" aria-hidden="true" />
                {t(typeLabels[type])}
              </Link>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="locations-heading" className="mx-auto max-w-7xl px-4 py-12">
        <h2 id="locations-heading" className="mb-6 text-2xl font-bold">
          {t('home.locationsTitle')}
        </h2>
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-4">
          {landingLocations.map((location) => (
            <li key={location}>
              <Link
                to={`${paths.properties}?location=${encodeURIComponent(location)}`}
                className="flex items-center gap-2 rounded-lg border bg-card p-4 font-medium hover:border-primary"
              >
                <MapPinIcon className="size-5 text-primary" aria-hidden="true" />
                {location}
              </Link>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="benefits-heading" className="bg-muted/50">
        <div className="mx-auto max-w-7xl px-4 py-12">
          <h2 id="benefits-heading" className="mb-6 text-2xl font-bold">
            {t('home.benefitsTitle')}
          </h2>
          <ul className="grid gap-4 md:grid-cols-3">
            {benefits.map(({ icon: Icon, title, body }) => (
              <li key={title} className="rounded-lg border bg-card p-5">
                <Icon className="mb-3 size-6 text-primary" aria-hidden="true" />
                <h3 className="font-semibold">{t(title)}</h3>
                <p className="mt-1 text-sm text-muted-foreground">{t(body)}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section aria-labelledby="moving-heading" className="mx-auto max-w-7xl px-4 py-12">
        <div className="flex flex-col items-start gap-4 rounded-xl border bg-card p-6 md:flex-row md:items-center">
          <TruckIcon className="size-10 text-primary" aria-hidden="true" />
          <div className="flex-1">
            <h2 id="moving-heading" className="text-2xl font-bold">
              {t('home.movingTitle')}
            </h2>
            <p className="mt-1 text-muted-foreground">{t('home.movingBody')}</p>
          </div>
          <Button asChild>
            <Link to={paths.services}>{t('home.movingCta')}</Link>
          </Button>
        </div>
      </section>

      <section aria-labelledby="pricing-heading" className="mx-auto max-w-7xl px-4 py-12">
        <h2 id="pricing-heading" className="mb-2 text-2xl font-bold">
          {t('home.pricingTitle')}
        </h2>
        <p className="mb-6 text-muted-foreground">{t('home.pricingBody')}</p>
        <ul className="grid gap-4 md:grid-cols-3">
          {(
            [
              ['home.pricingRental', 28],
              ['home.pricingCommercial', 85],
              ['home.pricingHousehold', 18],
            ] as const
          ).map(([label, nests]) => (
            <li key={label} className="rounded-lg border bg-card p-5">
              <p className="font-semibold">{t(label)}</p>
              <p className="mt-2 text-sm text-muted-foreground">{t('home.pricingFrom', { nests })}</p>
            </li>
          ))}
        </ul>
        <Button asChild variant="outline" className="mt-6">
          <Link to={paths.pricing}>{t('home.pricingCta')}</Link>
        </Button>
      </section>

      <section aria-labelledby="stats-heading" className="bg-primary text-primary-foreground">
        <div className="mx-auto max-w-7xl px-4 py-12">
          <h2 id="stats-heading" className="sr-only">
            {t('home.statsTitle')}
          </h2>
          <dl className="grid grid-cols-3 gap-4 text-center">
            {(
              [
                ['1000+', 'home.statProperties'],
                ['5000+', 'home.statItems'],
                ['10000+', 'home.statUsers'],
              ] as const
            ).map(([value, label]) => (
              <div key={label}>
                <dt className="text-sm font-medium">{t(label)}</dt>
                <dd className="text-3xl font-bold">{value}</dd>
              </div>
            ))}
          </dl>
        </div>
      </section>

      <section aria-labelledby="testimonials-heading" className="mx-auto max-w-7xl px-4 py-12">
        <h2 id="testimonials-heading" className="mb-6 text-2xl font-bold">
          {t('home.testimonialsTitle')}
        </h2>
        <ul className="grid gap-4 md:grid-cols-3">
          {testimonials.map(({ quote, name, place }) => (
            <li key={name} className="rounded-lg border bg-card p-5">
              <blockquote className="text-sm">“{t(quote)}”</blockquote>
              <p className="mt-3 flex items-center gap-1 text-sm font-medium">
                <UsersIcon className="size-4 text-primary" aria-hidden="true" />
                {name}, {place}
              </p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="newsletter-heading" className="bg-muted/50">
        <div className="mx-auto flex max-w-7xl flex-col items-start gap-4 px-4 py-12">
          <h2 id="newsletter-heading" className="flex items-center gap-2 text-2xl font-bold">
            <BadgeCheckIcon className="size-6 text-primary" aria-hidden="true" />
            {t('home.newsletterTitle')}
          </h2>
          <p className="text-muted-foreground">{t('home.newsletterBody')}</p>
          <NewsletterForm />
        </div>
      </section>
    </>
  )
}
