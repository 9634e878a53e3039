import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { marketplaceByCategory, paths, propertiesByType } from '@/config/paths'
import { socialLinks } from '@/config/social'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

// Query values stay English: they are data values, not copy.
const propertyTypes: readonly { value: string; label: MessageKey }[] = [
  { value: 'Single Room', label: 'propertyType.singleRoom' },
  { value: 'Bedsitter', label: 'propertyType.bedsitter' },
  { value: 'One Bedroom', label: 'propertyType.oneBedroom' },
  { value: 'Two Bedroom', label: 'propertyType.twoBedroom' },
  { value: 'Three Bedroom', label: 'propertyType.threeBedroom' },
]

const categories: readonly { value: string; label: MessageKey }[] = [
  { value: 'Furniture', label: 'category.furniture' },
  { value: 'Electronics', label: 'category.electronics' },
  { value: 'Kitchen', label: 'category.kitchen' },
  { value: 'Bedroom', label: 'category.bedroom' },
  { value: 'Appliances', label: 'category.appliances' },
]

const helpLinks: readonly { to: string; label: MessageKey }[] = [
  { to: paths.contact, label: 'footer.contact' },
  { to: paths.terms, label: 'footer.terms' },
  { to: paths.privacy, label: 'footer.privacy' },
]

const linkClass = 'text-sm text-muted-foreground transition-colors hover:text-foreground'

/** Site footer: social links, property types, categories and help pages. */
function Footer() {
  const { t } = useTranslation()

  return (
    <footer className="border-t bg-muted/40">
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-10 sm:grid-cols-2 lg:grid-cols-4">
        <section aria-labelledby="footer-brand">
          <h2 id="footer-brand" className="text-lg font-bold text-primary">
            {t('app.name')}
          </h2>
          <p className="mt-2 text-sm text-muted-foreground">{t('footer.blurb')}</p>
          <h3 className="mt-4 text-sm font-semibold">{t('footer.followUs')}</h3>
          <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
            {socialLinks.map(({ href, label }) => (
              <li key={href}>
                <a href={href} target="_blank" rel="noopener noreferrer" className={linkClass}>
                  {t(label)}
                </a>
              </li>
            ))}
          </ul>
        </section>
        <FooterColumn id="footer-property-types" title={t('footer.propertyTypes')}>
          {propertyTypes.map(({ value, label }) => (
            <li key={value}>
              <Link to={propertiesByType(value)} className={linkClass}>
                {t(label)}
              </Link>
            </li>
          ))}
        </FooterColumn>
        <FooterColumn id="footer-marketplace" title={t('footer.marketplace')}>
          {categories.map(({ value, label }) => (
            <li key={value}>
              <Link to={marketplaceByCategory(value)} className={linkClass}>
                {t(label)}
              </Link>
            </li>
          ))}
        </FooterColumn>
        <FooterColumn id="footer-help" title={t('footer.help')}>
          {helpLinks.map(({ to, label }) => (
            <li key={to}>
              <Link to={to} className={linkClass}>
                {t(label)}
              </Link>
            </li>
          ))}
        </FooterColumn>
      </div>
      <p className="border-t py-4 text-center text-xs text-muted-foreground">
        {t('footer.rights', { year: new Date().getFullYear() })}
      </p>
    </footer>
  )
}

function FooterColumn({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id} className="text-sm font-semibold">
        {title}
      </h2>
      <ul className="mt-3 space-y-2">{children}</ul>
    </section>
  )
}

export { Footer }
