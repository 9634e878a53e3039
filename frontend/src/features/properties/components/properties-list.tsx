import { SearchIcon } from 'lucide-react'
import { useState, type FormEvent } from 'react'

import { ClearFiltersButton, FilterSelect, LocationFilter, NewListingLink } from '@/components/listings/listing-filters'
import { ListingResults } from '@/components/listings/listing-results'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { propertyPurposes, propertyTypes } from '@/config/listings'
import { paths } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'
import { termOptions } from '@/lib/i18n/terms'
import { parsePage } from '@/lib/pagination'
import { readTextParams, useUrlFilters } from '@/lib/search-params'

import { useProperties } from '../api/get-properties'
import type { PropertyFilters } from '../api/keys'
import { PropertyCard } from './property-card'

const filterNames = ['type', 'location', 'purpose', 'query', 'category'] as const

/** The filters of /properties as read from the URL (type, location, purpose, query, category, page). */
export function readPropertyFilters(params: URLSearchParams): PropertyFilters {
  return { ...readTextParams(params, filterNames), page: parsePage(params.get('page')) }
}

/** /properties: a search form (the landing page's search lands here), filters from the URL, the grid and its states. */
export function PropertiesList() {
  const { t } = useTranslation()
  const { params, get, set } = useUrlFilters()
  const filters = readPropertyFilters(params)
  const query = useProperties(filters)
  // The box follows the URL: after a footer link, the back button or Clear
  // Filters it shows the query the results are for (a local edit lasts
  // until the URL's query changes).
  const urlQuery = get('query')
  const [text, setText] = useState(urlQuery)
  const [shownQuery, setShownQuery] = useState(urlQuery)
  if (shownQuery !== urlQuery) {
    setShownQuery(urlQuery)
    setText(urlQuery)
  }

  const onSearch = (event: FormEvent) => {
    event.preventDefault()
    set({ query: text.trim() })
  }

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end gap-3">
        <form role="search" onSubmit={onSearch} className="flex min-w-64 flex-1 gap-2">
          <label htmlFor="properties-search" className="sr-only">
            {t('properties.searchLabel')}
          </label>
          <Input id="properties-search" type="search" value={text} placeholder={t('properties.searchPlaceholder')} onChange={(e) => setText(e.target.value)} />
          <Button type="submit">
            <SearchIcon aria-hidden="true" />
            {t('home.searchButton')}
          </Button>
        </form>
        <NewListingLink to={paths.listProperty} label={t('properties.listCta')} />
      </div>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <FilterSelect param="type" label={t('properties.typeFilter')} allLabel={t('listings.allTypes')} options={termOptions(propertyTypes)} />
        <FilterSelect param="purpose" label={t('properties.purposeFilter')} allLabel={t('listings.allPurposes')} options={termOptions(propertyPurposes)} />
        <LocationFilter />
        <div className="flex items-end">
          <ClearFiltersButton params={filterNames} onClear={() => setText('')} className="w-full" />
        </div>
      </div>
      <ListingResults
        query={query}
        page={filters.page}
        texts={{ loading: t('properties.loading'), failed: t('properties.loadFailed'), empty: t('properties.empty'), emptyHint: t('listings.emptyHint') }}
        columns="sm:grid-cols-2 lg:grid-cols-3"
        summary={(count) => (
          <p className="text-sm text-muted-foreground" aria-live="polite">
            {count === 1 ? t('listings.resultCountOne') : t('listings.resultCount', { count })}
          </p>
        )}
        renderItem={(property) => <PropertyCard property={property} />}
      />
    </div>
  )
}
