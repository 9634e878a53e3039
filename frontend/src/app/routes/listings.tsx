import type { ReactNode } from 'react'

import { LandsList } from '@/features/lands/components/lands-list'
import { ProductsList } from '@/features/products/components/products-list'
import { PropertiesList } from '@/features/properties/components/properties-list'
import { SaveActionsProvider } from '@/features/saved/components/save-button'
import { ServicesList } from '@/features/services/components/services-list'
import { useDocumentMeta } from '@/lib/document-meta'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

function ListingPage({ title, intro, children }: { title: MessageKey; intro: MessageKey; children: ReactNode }) {
  const { t } = useTranslation()
  useDocumentMeta(`${t(title)} | ${t('app.name')}`, t(intro))
  return (
    <div className="mx-auto max-w-7xl px-4 py-10">
      <header className="mb-6">
        <h1 className="text-3xl font-bold tracking-tight">{t(title)}</h1>
        <p className="mt-1 text-muted-foreground">{t(intro)}</p>
      </header>
      <SaveActionsProvider>{children}</SaveActionsProvider>
    </div>
  )
}

export function PropertiesRoute() {
  return (
    <ListingPage title="properties.title" intro="properties.intro">
      <PropertiesList />
    </ListingPage>
  )
}

export function MarketplaceRoute() {
  return (
    <ListingPage title="products.title" intro="products.intro">
      <ProductsList />
    </ListingPage>
  )
}

export function LandsRoute() {
  return (
    <ListingPage title="lands.title" intro="lands.intro">
      <LandsList />
    </ListingPage>
  )
}

export function ServicesRoute() {
  return (
    <ListingPage title="services.title" intro="services.intro">
      <ServicesList />
    </ListingPage>
  )
}
