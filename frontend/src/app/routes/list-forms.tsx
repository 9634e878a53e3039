import { useState, type ReactNode } from 'react'
import { useNavigate, useParams } from 'react-router'

import { DetailStatus } from '@/components/listings/detail-parts'
import { detailPath } from '@/config/paths'
import { RequireAuth } from '@/features/auth/components/require-auth'
import { LandForm } from '@/features/lands/components/land-form'
import { ProductForm } from '@/features/products/components/product-form'
import { PropertyForm } from '@/features/properties/components/property-form'
import { useOwnService } from '@/features/services/api/get-own-service'
import { ServiceForm } from '@/features/services/components/service-form'
import { PublishListingPanel } from '@/features/wallet/components/publish-listing-panel'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import type { ListingKind } from '@/lib/listing-fees'

/** A saved listing handed to step 2: its id and the fields its fee depends on. */
type Created = { id: string; fee: { type?: string | null; purpose?: string | null; price?: number | null } }

const detailOf: Record<ListingKind, (id: string) => string> = {
  property: detailPath.property,
  product: detailPath.product,
  land: detailPath.land,
  service: detailPath.service,
}

/**
 * A two-step listing page for signed-in users: the form (step 1), then the
 * fee payment (step 2) once the listing is saved.
 */
function CreateListingPage({
  kind,
  title,
  form,
}: {
  kind: ListingKind
  title: MessageKey
  form(onCreated: (created: Created) => void): ReactNode
}) {
  const { t } = useTranslation()
  const [created, setCreated] = useState<Created | null>(null)
  useDocumentMeta(`${t(title)} | ${t('app.name')}`, t('listForm.intro'))
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-10">
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{t(title)}</h1>
        <p className="mt-1 text-muted-foreground">{t('listForm.intro')}</p>
        <ol className="mt-4 flex gap-4 text-sm">
          <li aria-current={created ? undefined : 'step'} className={created ? 'text-muted-foreground' : 'font-semibold text-primary'}>
            {t('listForm.step1')}
          </li>
          <li aria-current={created ? 'step' : undefined} className={created ? 'font-semibold text-primary' : 'text-muted-foreground'}>
            {t('listForm.step2')}
          </li>
        </ol>
      </header>
      {created ? (
        <PublishListingPanel kind={kind} listingId={created.id} listing={created.fee} detailHref={detailOf[kind](created.id)} />
      ) : (
        form(setCreated)
      )}
    </div>
  )
}

export function ListPropertyRoute() {
  return (
    <RequireAuth>
      <CreateListingPage
        kind="property"
        title="listForm.propertyTitle"
        form={(onCreated) => <PropertyForm onCreated={(property) => onCreated({ id: property.id, fee: property })} />}
      />
    </RequireAuth>
  )
}

export function ListProductRoute() {
  return (
    <RequireAuth>
      <CreateListingPage
        kind="product"
        title="listForm.productTitle"
        form={(onCreated) => (
          <ProductForm onCreated={(product) => onCreated({ id: product.id, fee: { type: product.category, price: product.price } })} />
        )}
      />
    </RequireAuth>
  )
}

export function ListLandRoute() {
  return (
    <RequireAuth>
      <CreateListingPage kind="land" title="listForm.landTitle" form={(onCreated) => <LandForm onCreated={(land) => onCreated({ id: land.id, fee: land })} />} />
    </RequireAuth>
  )
}

export function ListServiceRoute() {
  return (
    <RequireAuth>
      <CreateListingPage
        kind="service"
        title="listForm.serviceTitle"
        form={(onCreated) => <ServiceForm onSaved={(service) => onCreated({ id: service.id, fee: { type: service.category } })} />}
      />
    </RequireAuth>
  )
}

function EditService({ id }: { id: string }) {
  const { t } = useTranslation()
  const { user } = useAuth()
  const navigate = useNavigate()
  // The owner's full row: the public detail query leaves out the phone, which the form must keep.
  const query = useOwnService(id, user?.id)
  useDocumentMeta(`${t('listForm.editServiceTitle')} | ${t('app.name')}`)
  if (query.isPending) return <DetailStatus status="loading" notFound="" failed="" />
  if (query.isError) return <DetailStatus status="error" notFound="" failed={t('services.loadFailed')} />
  if (!query.data || query.data.userid !== user?.id) return <DetailStatus status="missing" notFound={t('listForm.notYours')} failed="" />
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-10">
      <h1 className="text-3xl font-bold tracking-tight">{t('listForm.editServiceTitle')}</h1>
      <ServiceForm service={query.data} onSaved={(saved) => navigate(detailPath.service(saved.id))} />
    </div>
  )
}

/** /edit-service/:id: the owner edits their service; others are told it is not theirs. */
export function EditServiceRoute() {
  const id = useParams().id ?? ''
  return (
    <RequireAuth>
      <EditService key={id} id={id} />
    </RequireAuth>
  )
}
