import { ClockIcon, MapPinIcon, SparklesIcon } from 'lucide-react'
import { lazy, Suspense, useEffect } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { socialLinks } from '@/config/social'
import { useDocumentMeta } from '@/lib/document-meta'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

// The contact form (react-hook-form, zod) sits below the fold: its chunk
// loads after the page has painted.
const ContactForm = lazy(() => import('@/features/contact/components/contact-form').then((module) => ({ default: module.ContactForm })))

const services: readonly { to: string; title: MessageKey; body: MessageKey }[] = [
  { to: paths.properties, title: 'about.serviceProperties', body: 'about.servicePropertiesBody' },
  { to: paths.marketplace, title: 'about.serviceMarketplace', body: 'about.serviceMarketplaceBody' },
  { to: paths.services, title: 'about.serviceServices', body: 'about.serviceServicesBody' },
]

const values: readonly { title: MessageKey; body: MessageKey }[] = [
  { title: 'about.valueTransparency', body: 'about.valueTransparencyBody' },
  { title: 'about.valueCommunity', body: 'about.valueCommunityBody' },
  { title: 'about.valueInnovation', body: 'about.valueInnovationBody' },
  { title: 'about.valueService', body: 'about.valueServiceBody' },
]

/**
 * `/about`: the company page. Its contact form stores the message for the
 * admins (issue 13); the 'Get Updates' box still submits nothing (spec §2).
 */
export function AboutRoute() {
  const { t } = useTranslation()
  useDocumentMeta(`${t('about.title')} | ${t('app.name')}`, t('about.metaDescription'))

  useEffect(() => {
    window.scrollTo?.(0, 0)
  }, [])

  return (
    <div className="mx-auto flex max-w-5xl flex-col gap-12 px-4 py-12">
      <header>
        <h1 className="text-4xl font-bold tracking-tight">{t('about.title')}</h1>
        <p className="mt-3 text-lg text-muted-foreground">{t('about.vision')}</p>
      </header>

      <section aria-labelledby="story">
        <h2 id="story" className="mb-3 text-2xl font-bold">
          {t('about.storyTitle')}
        </h2>
        <p className="text-muted-foreground">{t('about.story')}</p>
        <dl className="mt-6 grid grid-cols-3 gap-4 text-center">
          {(
            [
              ['10,000+', 'about.statProperties'],
              ['8', 'about.statCities'],
              ['25,000+', 'about.statCustomers'],
            ] as const
          ).map(([value, label]) => (
            <div key={label} className="rounded-lg border bg-card p-4">
              <dt className="text-sm text-muted-foreground">{t(label)}</dt>
              <dd className="text-2xl font-bold text-primary">{value}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section aria-labelledby="services">
        <h2 id="services" className="mb-3 text-2xl font-bold">
          {t('about.servicesTitle')}
        </h2>
        <ul className="grid gap-4 md:grid-cols-3">
          {services.map(({ to, title, body }) => (
            <li key={to} className="rounded-lg border bg-card p-5">
              <h3 className="font-semibold">
                <Link to={to} className="hover:text-primary">
                  {t(title)}
                </Link>
              </h3>
              <p className="mt-1 text-sm text-muted-foreground">{t(body)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="upcoming" className="rounded-xl border bg-accent/40 p-6">
        <h2 id="upcoming" className="flex items-center gap-2 text-2xl font-bold">
          <SparklesIcon className="size-6 text-primary" aria-hidden="true" />
          {t('about.upcomingTitle')}
        </h2>
        <p className="mt-2 text-muted-foreground">{t('about.upcomingBody')}</p>
        <p className="mt-2 text-sm font-semibold text-primary">{t('about.upcomingBadge')}</p>
      </section>

      <section aria-labelledby="values">
        <h2 id="values" className="mb-3 text-2xl font-bold">
          {t('about.valuesTitle')}
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2">
          {values.map(({ title, body }) => (
            <li key={title} className="rounded-lg border bg-card p-5">
              <h3 className="font-semibold">{t(title)}</h3>
              <p className="mt-1 text-sm text-muted-foreground">{t(body)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="founder" className="rounded-xl border bg-card p-6">
        <h2 id="founder" className="text-2xl font-bold">
          {t('about.founderTitle')}
        </h2>
        <p className="mt-2 font-semibold">{t('about.founderName')}</p>
        <p className="text-sm text-muted-foreground">{t('about.founderRole')}</p>
        <ul className="mt-3 flex gap-3 text-sm">
          {socialLinks.map((link) => (
            <li key={link.href}>
              <a href={link.href} target="_blank" rel="noreferrer" className="text-primary hover:underline">
                {t(link.label)}
              </a>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="contact" className="grid gap-8 md:grid-cols-2">
        <div>
          <h2 id="contact" className="mb-3 text-2xl font-bold">
            {t('about.contactTitle')}
          </h2>
          <p className="flex items-center gap-2 text-muted-foreground">
            <ClockIcon className="size-4" aria-hidden="true" />
            {t('about.hours')}
          </p>
          <p className="mt-2 flex items-center gap-2 text-muted-foreground">
            <MapPinIcon className="size-4" aria-hidden="true" />
            {t('about.headquarters')}
          </p>
          <Suspense fallback={<Spinner label={t('app.loading')} className="mt-6 py-16" />}>
            <ContactForm className="mt-6" />
          </Suspense>
        </div>
        <div className="flex flex-col gap-6">
          <div className="rounded-xl border bg-card p-6">
            <h2 className="text-xl font-bold">{t('about.updatesTitle')}</h2>
            <form className="mt-3 flex gap-2" onSubmit={(event) => event.preventDefault()}>
              <label htmlFor="about-updates" className="sr-only">
                {t('about.email')}
              </label>
              <Input id="about-updates" type="email" placeholder={t('home.newsletterPlaceholder')} />
              <Button type="submit">{t('about.updatesSubmit')}</Button>
            </form>
          </div>
          <div className="rounded-xl border bg-primary p-6 text-primary-foreground">
            <h2 className="text-xl font-bold">{t('about.ctaTitle')}</h2>
            <div className="mt-4 flex flex-wrap gap-2">
              <Button asChild variant="secondary">
                <Link to={paths.register}>{t('about.ctaJoin')}</Link>
              </Button>
              <Button asChild variant="outline" className="text-foreground dark:bg-background dark:hover:bg-accent">
                <Link to={paths.contact}>{t('about.ctaContact')}</Link>
              </Button>
            </div>
          </div>
        </div>
      </section>
    </div>
  )
}
