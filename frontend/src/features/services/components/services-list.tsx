import { Link } from 'react-router'

import { FilterText, NewListingLink } from '@/components/listings/listing-filters'
import { ListingResults } from '@/components/listings/listing-results'
import { Button } from '@/components/ui/button'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { paths } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'
import { parsePage } from '@/lib/pagination'
import { readTextParams, useUrlFilters } from '@/lib/search-params'

import { useServices } from '../api/get-services'
import type { ServiceFilters } from '../api/keys'
import { ServiceCard } from './service-card'

/** The filters of /services from the URL (category tab, search, page). */
export function readServiceFilters(params: URLSearchParams): ServiceFilters {
  const category = params.get('category')
  return {
    ...(category === 'Drone' || category === 'Moving' ? { category } : {}),
    ...readTextParams(params, ['search']),
    page: parsePage(params.get('page')),
  }
}

/** /services: search, the All/Drone/Moving tabs, provider cards and their states. */
export function ServicesList() {
  const { t } = useTranslation()
  const { params, set } = useUrlFilters()
  const filters = readServiceFilters(params)
  const query = useServices(filters)

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end gap-3">
        <FilterText search param="search" className="min-w-64 flex-1" label={t('services.searchLabel')} placeholder={t('services.searchPlaceholder')} />
        <NewListingLink to={paths.listService} label={t('services.listCta')} />
        <Button asChild variant="outline">
          <Link to={paths.myServices}>{t('account.myServices')}</Link>
        </Button>
      </div>
      <Tabs value={filters.category ?? 'all'} onValueChange={(value) => set({ category: value })} className="flex flex-col gap-6">
        <TabsList aria-label={t('services.tabsLabel')}>
          <TabsTrigger value="all">{t('services.tabAll')}</TabsTrigger>
          <TabsTrigger value="Drone">{t('services.tabDrone')}</TabsTrigger>
          <TabsTrigger value="Moving">{t('services.tabMoving')}</TabsTrigger>
        </TabsList>
        <TabsContent value={filters.category ?? 'all'} className="flex flex-col gap-6">
          <ListingResults
            query={query}
            page={filters.page}
            texts={{ loading: t('services.loading'), failed: t('services.loadFailed'), empty: t('services.empty'), emptyHint: t('listings.emptyHint') }}
            columns="sm:grid-cols-2 lg:grid-cols-3"
            renderItem={(provider) => <ServiceCard provider={provider} />}
          />
        </TabsContent>
      </Tabs>
    </div>
  )
}
