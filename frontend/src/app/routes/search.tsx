import { useSearchParams } from 'react-router'

import { SaveActionsProvider } from '@/features/saved/components/save-button'
import { cleanSearch } from '@/features/search/api/search-filter'
import { SearchPage } from '@/features/search/components/search-page'
import { useDocumentMeta } from '@/lib/document-meta'
import { useDiscoverTranslation } from '@/lib/i18n/discover'

/**
 * /search (linked from the mobile bar): public, like the listing detail
 * pages its results open; 'See all' follows the navigation's sign-in rule.
 * The heart sits on every result.
 */
export function SearchRoute() {
  const { t, td } = useDiscoverTranslation()
  const q = cleanSearch(useSearchParams()[0].get('q') ?? '')
  useDocumentMeta(`${q ? td('search.metaTitleFor', { q }) : td('search.metaTitle')} | ${t('app.name')}`, td('search.intro'))
  return (
    <div className="mx-auto max-w-7xl px-4 py-10">
      <header className="mb-6">
        <h1 className="text-3xl font-bold tracking-tight">{td('search.title')}</h1>
        <p className="mt-1 text-muted-foreground">{td('search.intro')}</p>
      </header>
      <SaveActionsProvider>
        <SearchPage />
      </SaveActionsProvider>
    </div>
  )
}
