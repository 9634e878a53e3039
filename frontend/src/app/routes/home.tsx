import { useTranslation } from '@/lib/i18n/i18n'

/** Placeholder landing page until the real one lands. */
export function HomeRoute() {
  const { t } = useTranslation()

  return (
    <section className="mx-auto max-w-7xl px-4 py-16 sm:py-24">
      <h1 className="text-4xl font-bold tracking-tight text-primary sm:text-5xl">{t('app.name')}</h1>
      <p className="mt-3 text-xl font-medium">{t('app.tagline')}</p>
      <p className="mt-4 max-w-2xl text-muted-foreground">{t('home.intro')}</p>
    </section>
  )
}
