import { PencilIcon } from 'lucide-react'
import { useState, type ReactNode } from 'react'
import { useNavigate } from 'react-router'

import { LinkButton, MyListingsPage, SignedInOnly } from '@/components/listings/my-listings-page'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { detailPath, paths } from '@/config/paths'
import { RequireAuth } from '@/features/auth/components/require-auth'
import { useDeleteLand, useMyLands, useSetLandActive } from '@/features/lands/api/my-lands'
import { LandCard } from '@/features/lands/components/land-card'
import { useDeleteProduct, useMyProducts, useSetProductActive } from '@/features/products/api/my-products'
import { ProductCard } from '@/features/products/components/product-card'
import { useDeleteProperty, useMyProperties, useSetPropertyActive } from '@/features/properties/api/my-properties'
import { propertyDisplay, PropertyCard } from '@/features/properties/components/property-card'
import { useDeleteService, useMyServices, useSetServiceActive } from '@/features/services/api/my-services'
import { ServiceCard } from '@/features/services/components/service-card'
import { ManageListing, type ManagedListing } from '@/features/wallet/components/manage-listing'
import { listingPaymentState } from '@/features/wallet/components/owner-listing-status'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import type { MyListingsKey } from '@/lib/i18n/en-my-listings'
import { tMy, useMyListingsTranslation } from '@/lib/i18n/my-listings'
import type { ListingKind } from '@/lib/listing-fees'
import { cn } from '@/lib/utils'

/** A listing card with the owner's controls under it; inactive listings are dimmed. */
function OwnerCard({ inactive, children }: { inactive: boolean; children: ReactNode }) {
  return (
    <div
      data-inactive={inactive || undefined}
      className={cn(
        'flex h-full flex-col gap-0 overflow-hidden rounded-xl border bg-card pb-4 [&>[data-slot=card]]:rounded-none [&>[data-slot=card]]:border-0 [&>[data-slot=card]]:shadow-none',
        inactive && '[&>[data-slot=card]]:opacity-60',
      )}
    >
      {children}
    </div>
  )
}

type Mutation<Vars> = { mutateAsync(vars: Vars): Promise<unknown>; isPending: boolean; variables?: Vars }

/** Deletes with a toast for the outcome; rejects on failure so the dialog stays open. */
function deleteWithToast(mutation: Mutation<string>, id: string, ok: MyListingsKey, failed: MyListingsKey) {
  return mutation.mutateAsync(id).then(
    () => toast({ title: tMy(ok), variant: 'success' }),
    (error: unknown) => {
      toast({ title: tMy(failed), description: error instanceof Error ? error.message : undefined, variant: 'destructive' })
      throw error
    },
  )
}

/** Switches a listing on or off with a toast for the outcome (the server's reason on refusal). */
function toggleWithToast(
  mutation: Mutation<{ id: string; active: boolean }>,
  id: string,
  active: boolean,
  messages: { on: MyListingsKey; off: MyListingsKey; failed: MyListingsKey },
) {
  mutation.mutateAsync({ id, active }).then(
    () => toast({ title: tMy(active ? messages.on : messages.off), variant: 'success' }),
    (error: unknown) =>
      toast({ title: tMy(messages.failed), description: error instanceof Error ? error.message : undefined, variant: 'destructive' }),
  )
}

const listingToggleMessages = { on: 'my.action.activated', off: 'my.action.deactivated', failed: 'my.action.updateFailed' } as const

/** The controls of one listing, wired to its feature's delete and activate mutations. */
function Controls({
  kind,
  listing,
  fee,
  detailHref,
  remove,
  setActive,
  messages,
  alwaysToggle = false,
  toggleMessages = listingToggleMessages,
  children,
}: {
  kind: ListingKind
  listing: ManagedListing
  fee: { type?: string | null; purpose?: string | null; price?: number | null }
  detailHref: string
  remove: Mutation<string>
  setActive: Mutation<{ id: string; active: boolean }>
  messages: { deleted: MyListingsKey; deleteFailed: MyListingsKey }
  /** Services toggle whatever their payment state (spec §2); other kinds only once paid. */
  alwaysToggle?: boolean
  toggleMessages?: { on: MyListingsKey; off: MyListingsKey; failed: MyListingsKey }
  children?: ReactNode
}) {
  const state = listingPaymentState(listing)
  const canToggle = alwaysToggle || state === 'live' || state === 'paused'
  return (
    <ManageListing
      kind={kind}
      listing={listing}
      fee={fee}
      detailHref={detailHref}
      toggle={
        canToggle
          ? {
              onToggle: (active) => toggleWithToast(setActive, listing.id, active, toggleMessages),
              pending: setActive.isPending && setActive.variables?.id === listing.id,
            }
          : null
      }
      onDelete={() => deleteWithToast(remove, listing.id, messages.deleted, messages.deleteFailed)}
      deleting={remove.isPending && remove.variables === listing.id}
    >
      {children}
    </ManageListing>
  )
}

type PropertyFilter = 'all' | 'Rent' | 'Sale'

function MyPropertiesPage() {
  const { t } = useMyListingsTranslation()
  const { user } = useAuth()
  const query = useMyProperties(user?.id)
  const remove = useDeleteProperty()
  const setActive = useSetPropertyActive()
  const [filter, setFilter] = useState<PropertyFilter>('all')
  useDocumentMeta(`${tMy('my.properties.title')} | ${t('app.name')}`, tMy('my.properties.intro'))
  const visible = filter === 'all' ? query.data : query.data?.filter((property) => (property.purpose || 'Rent') === filter)
  const filters: [PropertyFilter, MyListingsKey][] = [
    ['all', 'my.properties.filterAll'],
    ['Rent', 'my.properties.filterRent'],
    ['Sale', 'my.properties.filterSale'],
  ]

  return (
    <MyListingsPage
      title={tMy('my.properties.title')}
      intro={tMy('my.properties.intro')}
      actions={
        <LinkButton to={paths.listProperty} icon>
          {tMy('my.properties.new')}
        </LinkButton>
      }
      filter={
        <div role="group" aria-label={tMy('my.properties.filterLabel')} className="flex flex-wrap gap-2">
          {filters.map(([value, label]) => (
            <Button key={value} size="sm" variant={filter === value ? 'default' : 'outline'} aria-pressed={filter === value} onClick={() => setFilter(value)}>
              {tMy(label)}
            </Button>
          ))}
        </div>
      }
      query={query}
      visible={visible}
      loadingLabel={tMy('my.properties.loading')}
      errorMessage={`${tMy('my.properties.loadFailed')}. ${tMy('my.properties.loadFailedBody')}`}
      empty={{
        title: tMy('my.properties.empty'),
        hint: tMy('my.properties.emptyHint'),
        actions: <LinkButton to={paths.listProperty}>{tMy('my.properties.emptyCta')}</LinkButton>,
      }}
      filteredEmpty={tMy('my.properties.filterEmpty')}
      itemKey={(property) => property.id}
      renderItem={(property) => (
        <OwnerCard inactive={!property.is_active}>
          <PropertyCard property={property} />
          <Controls
            kind="property"
            listing={{ ...property, title: propertyDisplay(property, t).title }}
            fee={property}
            detailHref={detailPath.property(property.id)}
            remove={remove}
            setActive={setActive}
            messages={{ deleted: 'my.properties.deleted', deleteFailed: 'my.properties.deleteFailed' }}
          />
        </OwnerCard>
      )}
    />
  )
}

function MyProductsPage() {
  const { t } = useMyListingsTranslation()
  const { user } = useAuth()
  const query = useMyProducts(user?.id)
  const remove = useDeleteProduct()
  const setActive = useSetProductActive()
  useDocumentMeta(`${tMy('my.products.title')} | ${t('app.name')}`, tMy('my.products.intro'))

  return (
    <MyListingsPage
      title={tMy('my.products.title')}
      intro={tMy('my.products.intro')}
      actions={
        <LinkButton to={paths.listProduct} icon>
          {tMy('my.products.new')}
        </LinkButton>
      }
      query={query}
      loadingLabel={tMy('my.products.loading')}
      errorMessage={`${tMy('my.products.loadFailed')}. ${tMy('my.products.loadFailedBody')}`}
      empty={{
        title: tMy('my.products.empty'),
        hint: tMy('my.products.emptyHint'),
        actions: <LinkButton to={paths.listProduct}>{tMy('my.products.emptyCta')}</LinkButton>,
      }}
      itemKey={(product) => product.id}
      renderItem={(product) => (
        <OwnerCard inactive={!product.is_active}>
          <ProductCard product={product} />
          <Controls
            kind="product"
            listing={{ ...product, title: product.name }}
            fee={{ type: product.category, price: product.price }}
            detailHref={detailPath.product(product.id)}
            remove={remove}
            setActive={setActive}
            messages={{ deleted: 'my.products.deleted', deleteFailed: 'my.products.deleteFailed' }}
          />
        </OwnerCard>
      )}
    />
  )
}

function MyLandsPage() {
  const { t } = useMyListingsTranslation()
  const { user } = useAuth()
  const query = useMyLands(user?.id)
  const remove = useDeleteLand()
  const setActive = useSetLandActive()
  useDocumentMeta(`${tMy('my.lands.title')} | ${t('app.name')}`, tMy('my.lands.intro'))

  return (
    <MyListingsPage
      title={tMy('my.lands.title')}
      intro={tMy('my.lands.intro')}
      actions={
        <LinkButton to={paths.listLand} icon>
          {tMy('my.lands.new')}
        </LinkButton>
      }
      query={query}
      loadingLabel={tMy('my.lands.loading')}
      errorMessage={tMy('my.lands.loadFailed')}
      empty={{
        title: tMy('my.lands.empty'),
        hint: tMy('my.lands.emptyHint'),
        actions: <LinkButton to={paths.listLand}>{tMy('my.lands.emptyCta')}</LinkButton>,
      }}
      itemKey={(land) => land.id}
      renderItem={(land) => (
        <OwnerCard inactive={!land.is_active}>
          <LandCard land={land} />
          <Controls
            kind="land"
            listing={land}
            fee={land}
            detailHref={detailPath.land(land.id)}
            remove={remove}
            setActive={setActive}
            messages={{ deleted: 'my.lands.deleted', deleteFailed: 'my.lands.deleteFailed' }}
          />
        </OwnerCard>
      )}
    />
  )
}

function MyServicesPage() {
  const { t } = useMyListingsTranslation()
  const { user } = useAuth()
  const navigate = useNavigate()
  const query = useMyServices(user?.id)
  const remove = useDeleteService()
  const setActive = useSetServiceActive()
  useDocumentMeta(`${tMy('my.services.title')} | ${t('app.name')}`, tMy('my.services.intro'))

  const edit = (id: string) => {
    toast({ title: tMy('my.services.editing', { id }), variant: 'info' })
    void navigate(detailPath.editService(id))
  }

  return (
    <MyListingsPage
      title={tMy('my.services.title')}
      intro={tMy('my.services.intro')}
      actions={
        <>
          <LinkButton to={paths.services} variant="outline">
            {tMy('my.services.browse')}
          </LinkButton>
          <LinkButton to={paths.listService} icon>
            {tMy('my.services.new')}
          </LinkButton>
        </>
      }
      query={query}
      loadingLabel={tMy('my.services.loading')}
      errorMessage={tMy('my.services.loadFailed')}
      empty={{
        title: tMy('my.services.empty'),
        hint: tMy('my.services.emptyHint'),
        actions: <LinkButton to={paths.listService}>{tMy('my.services.emptyCta')}</LinkButton>,
      }}
      itemKey={(service) => service.id}
      renderItem={(service) => (
        <OwnerCard inactive={!service.is_active}>
          <ServiceCard provider={service} />
          {!service.verified && (
            <div className="px-6 pb-3">
              <Badge variant="warning">{tMy('my.services.pendingVerification')}</Badge>
            </div>
          )}
          <Controls
            kind="service"
            listing={{ ...service, title: service.name }}
            fee={{ type: service.category }}
            detailHref={detailPath.service(service.id)}
            remove={remove}
            setActive={setActive}
            alwaysToggle
            toggleMessages={{ on: 'my.services.activated', off: 'my.services.deactivated', failed: 'my.services.updateFailed' }}
            messages={{ deleted: 'my.services.deleted', deleteFailed: 'my.services.deleteFailed' }}
          >
            <Button size="sm" variant="outline" onClick={() => edit(service.id)}>
              <PencilIcon aria-hidden="true" />
              {tMy('my.action.edit')}
            </Button>
          </Controls>
        </OwnerCard>
      )}
    />
  )
}

/**
 * /my-properties (spec §2): the owner's properties, filterable by Rentals and
 * Sales. A signed-out visitor sees 'Sign In Required' with a Sign In button.
 */
export function MyPropertiesRoute() {
  useMyListingsTranslation()
  return (
    <SignedInOnly title={tMy('my.signIn.title')} message={tMy('my.signIn.properties')} signIn={tMy('my.signIn.button')}>
      <MyPropertiesPage />
    </SignedInOnly>
  )
}

/** /my-products (spec §2): the owner's marketplace items. Signed-in users only. */
export function MyProductsRoute() {
  return (
    <RequireAuth>
      <MyProductsPage />
    </RequireAuth>
  )
}

/** /my-lands (spec §2): the owner's land listings. Signed-in users only. */
export function MyLandsRoute() {
  return (
    <RequireAuth>
      <MyLandsPage />
    </RequireAuth>
  )
}

/** /my-services (spec §2): the owner's service providers, with Edit and Activate/Deactivate. Signed-in users only. */
export function MyServicesRoute() {
  return (
    <RequireAuth>
      <MyServicesPage />
    </RequireAuth>
  )
}
