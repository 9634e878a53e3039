import { ClearFiltersButton, FilterSelect, FilterText, LocationFilter, NewListingLink } from '@/components/listings/listing-filters'
import { ListingResults } from '@/components/listings/listing-results'
import { productCategories, productStatuses } from '@/config/listings'
import { paths } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'
import { termOptions } from '@/lib/i18n/terms'
import { parsePage } from '@/lib/pagination'
import { readTextParams, useUrlFilters } from '@/lib/search-params'

import { useProducts } from '../api/get-products'
import type { ProductFilters } from '../api/keys'
import { ProductCard } from './product-card'

const filterNames = ['category', 'status', 'location', 'query'] as const

/** The filters of /marketplace as read from the URL (category, status, location, query, page). */
export function readProductFilters(params: URLSearchParams): ProductFilters {
  return { ...readTextParams(params, filterNames), page: parsePage(params.get('page')) }
}

/** /marketplace: search, category, condition and location filters from the URL, the grid and its states. */
export function ProductsList() {
  const { t } = useTranslation()
  const { params } = useUrlFilters()
  const filters = readProductFilters(params)
  const query = useProducts(filters)

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end gap-3">
        <FilterText search param="query" className="min-w-64 flex-1" label={t('products.searchLabel')} placeholder={t('products.searchPlaceholder')} />
        <NewListingLink to={paths.listProduct} label={t('products.listCta')} />
      </div>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <FilterSelect param="category" label={t('products.categoryFilter')} allLabel={t('listings.allCategories')} options={termOptions(productCategories)} />
        <FilterSelect param="status" label={t('products.statusFilter')} allLabel={t('products.allConditions')} options={termOptions(productStatuses)} />
        <LocationFilter />
        <div className="flex items-end">
          <ClearFiltersButton params={filterNames} className="w-full" />
        </div>
      </div>
      <ListingResults
        query={query}
        page={filters.page}
        texts={{ loading: t('products.loading'), failed: t('products.loadFailed'), empty: t('products.empty'), emptyHint: t('listings.emptyHint') }}
        columns="sm:grid-cols-2 lg:grid-cols-4"
        renderItem={(product) => <ProductCard product={product} />}
      />
    </div>
  )
}
