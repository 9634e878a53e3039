import { useEffect } from 'react'
import { Link, useRouteError } from 'react-router'

import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'

/** The router's errorElement: shown when a route throws while rendering. */
export function RouteError() {
  const error = useRouteError()
  const { t } = useTranslation()

  useEffect(() => {
    console.error(error)
  }, [error])

  return (
    <section role="alert" className="mx-auto flex max-w-2xl flex-col items-center px-4 py-24 text-center">
      <h1 className="text-2xl font-bold tracking-tight text-destructive">{t('error.title')}</h1>
      <p className="mt-3 text-muted-foreground">{t('error.body')}</p>
      <Button asChild variant="outline" className="mt-6">
        <Link to={paths.home} reloadDocument>
          {t('error.backHome')}
        </Link>
      </Button>
    </section>
  )
}
