import { ClearFiltersButton, FilterSelect, FilterText, NewListingLink } from '@/components/listings/listing-filters'
import { ListingResults } from '@/components/listings/listing-results'
import { landPurposes, landSorts, landTypes, type LandSort } from '@/config/listings'
import { paths } from '@/config/paths'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { termOptions } from '@/lib/i18n/terms'
import { parsePage } from '@/lib/pagination'
import { readTextParams, useUrlFilters } from '@/lib/search-params'

import { useLands } from '../api/get-lands'
import type { LandFilters } from '../api/keys'
import { LandCard } from './land-card'

const sortLabels: Record<LandSort, MessageKey> = {
  newest: 'lands.sortNewest',
  'price-asc': 'lands.sortPriceAsc',
  'price-desc': 'lands.sortPriceDesc',
}

/** The filters of /lands from the URL (search, type, purpose, sort, page). */
export function readLandFilters(params: URLSearchParams): LandFilters {
  const sort = params.get('sort')
  return {
    ...readTextParams(params, ['search', 'type', 'purpose']),
    sort: (landSorts as readonly string[]).includes(sort ?? '') ? (sort as LandSort) : 'newest',
    page: parsePage(params.get('page')),
  }
}

/** /lands: search, sort, type and purpose filters, Clear Filters, the cards and their states. */
export function LandsList() {
  const { t } = useTranslation()
  const { params } = useUrlFilters()
  const filters = readLandFilters(params)
  const query = useLands(filters)

  return (
    <div className="flex flex-col gap-6">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
        <FilterText search param="search" className="lg:col-span-2" label={t('lands.searchLabel')} placeholder={t('lands.searchPlaceholder')} />
        <FilterSelect
          param="sort"
          label={t('lands.sortLabel')}
          defaultValue="newest"
          options={landSorts.map((value) => ({ value, label: t(sortLabels[value]) }))}
        />
        <FilterSelect param="type" label={t('lands.typeLabel')} allLabel={t('listings.allTypes')} options={termOptions(landTypes)} />
        <FilterSelect param="purpose" label={t('lands.purposeLabel')} allLabel={t('listings.allPurposes')} options={termOptions(landPurposes)} />
      </div>
      <div className="flex flex-wrap justify-between gap-3">
        <ClearFiltersButton params={['search', 'type', 'purpose', 'sort']} />
        <NewListingLink to={paths.listLand} label={t('lands.listCta')} />
      </div>
      <ListingResults
        query={query}
        page={filters.page}
        texts={{ loading: t('lands.loading'), failed: t('lands.loadFailed'), empty: t('lands.empty'), emptyHint: t('lands.emptyHint') }}
        columns="sm:grid-cols-2 lg:grid-cols-3"
        renderItem={(land) => <LandCard land={land} />}
      />
    </div>
  )
}
