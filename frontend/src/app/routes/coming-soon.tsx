import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'

/** Stands in for every screen that is not built yet. */
export function ComingSoonRoute() {
  const { t } = useTranslation()

  return (
    <section className="mx-auto flex max-w-2xl flex-col items-center px-4 py-24 text-center">
      <h1 className="text-3xl font-bold tracking-tight">{t('comingSoon.title')}</h1>
      <p className="mt-3 text-muted-foreground">{t('comingSoon.body')}</p>
      <Button asChild className="mt-6">
        <Link to={paths.home}>{t('comingSoon.backHome')}</Link>
      </Button>
    </section>
  )
}
