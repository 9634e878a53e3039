import { ChevronLeftIcon, ChevronRightIcon } from 'lucide-react'
import { useSearchParams } from 'react-router'

import { Button } from '@/components/ui/button'
import { useTranslation } from '@/lib/i18n/i18n'
import { pageCount } from '@/lib/pagination'

import { ListEmpty } from './list-states'

/** Moves to a 1-based page through the `page` URL parameter (page 1 drops it). */
function useGoToPage() {
  const [params, setParams] = useSearchParams()
  return (next: number) => {
    const copy = new URLSearchParams(params)
    if (next <= 1) copy.delete('page')
    else copy.set('page', String(next))
    setParams(copy)
    window.scrollTo?.(0, 0)
  }
}

/** Previous/next pages through the `page` URL parameter. */
function Pagination({ page, count }: { page: number; count: number }) {
  const { t } = useTranslation()
  const go = useGoToPage()
  const pages = pageCount(count)
  if (pages <= 1) return null

  return (
    <nav aria-label={t('listings.pagination')} className="mt-8 flex items-center justify-center gap-3">
      <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => go(page - 1)}>
        <ChevronLeftIcon aria-hidden="true" />
        {t('listings.previous')}
      </Button>
      <span className="text-sm text-muted-foreground">{t('listings.pageOf', { page, pages })}</span>
      <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => go(page + 1)}>
        {t('listings.next')}
        <ChevronRightIcon aria-hidden="true" />
      </Button>
    </nav>
  )
}

/**
 * A `?page=` past the last page (an old link, fewer results since): says so
 * and offers the last page, so the visitor is never stuck on an empty page.
 */
function PastLastPage({ page, count }: { page: number; count: number }) {
  const { t } = useTranslation()
  const go = useGoToPage()
  const pages = pageCount(count)
  return (
    <ListEmpty title={t('listings.pastLastPage', { page })} hint={t('listings.pastLastPageHint', { pages })}>
      <Button variant="outline" className="mt-2" onClick={() => go(pages)}>
        {pages === 1 ? t('listings.goToFirstPage') : t('listings.goToLastPage', { pages })}
      </Button>
    </ListEmpty>
  )
}

export { Pagination, PastLastPage }
