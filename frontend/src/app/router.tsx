import { lazy, type ComponentType } from 'react'
import { createBrowserRouter, type RouteObject } from 'react-router'
import { RouterProvider } from 'react-router/dom'

import { AppLayout } from '@/components/layouts/app-layout'
import type { ShellInbox } from '@/components/layouts/signed-in-slot'

import { RouteError } from './routes/route-error'

/** A route component from a lazily loaded module's named export. */
function page<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(() => load().then((module) => ({ default: module[name] })))
}

// Every page is its own chunk so the shell and the landing page load first.
const RedirectRoute = page(() => import('./routes/redirect'), 'RedirectRoute')
const HomeRoute = page(() => import('./routes/home'), 'HomeRoute')
const AboutRoute = page(() => import('./routes/about'), 'AboutRoute')
const TermsRoute = page(() => import('./routes/legal'), 'TermsRoute')
const PrivacyRoute = page(() => import('./routes/legal'), 'PrivacyRoute')
const ComingSoonRoute = page(() => import('./routes/coming-soon'), 'ComingSoonRoute')
// The data layout brings TanStack Query; only pages that fetch sit under it.
const DataLayout = page(() => import('./routes/data-layout'), 'DataLayout')
const PricingRoute = page(() => import('./routes/pricing'), 'PricingRoute')
const LoginRoute = page(() => import('./routes/auth'), 'LoginRoute')
const RegisterRoute = page(() => import('./routes/auth'), 'RegisterRoute')
const ForgotPasswordRoute = page(() => import('./routes/auth'), 'ForgotPasswordRoute')
const ResetPasswordRoute = page(() => import('./routes/auth'), 'ResetPasswordRoute')
const PropertiesRoute = page(() => import('./routes/listings'), 'PropertiesRoute')
const MarketplaceRoute = page(() => import('./routes/listings'), 'MarketplaceRoute')
const LandsRoute = page(() => import('./routes/listings'), 'LandsRoute')
const ServicesRoute = page(() => import('./routes/listings'), 'ServicesRoute')
const PropertyDetailsRoute = page(() => import('./routes/details'), 'PropertyDetailsRoute')
const ProductDetailsRoute = page(() => import('./routes/details'), 'ProductDetailsRoute')
const LandDetailsRoute = page(() => import('./routes/details'), 'LandDetailsRoute')
const ServiceDetailsRoute = page(() => import('./routes/details'), 'ServiceDetailsRoute')
const ListPropertyRoute = page(() => import('./routes/list-forms'), 'ListPropertyRoute')
const ListProductRoute = page(() => import('./routes/list-forms'), 'ListProductRoute')
const ListLandRoute = page(() => import('./routes/list-forms'), 'ListLandRoute')
const ListServiceRoute = page(() => import('./routes/list-forms'), 'ListServiceRoute')
const EditServiceRoute = page(() => import('./routes/list-forms'), 'EditServiceRoute')
const ProfileRoute = page(() => import('./routes/profile'), 'ProfileRoute')
const KycVerificationRoute = page(() => import('./routes/kyc-verification'), 'KycVerificationRoute')
const MyPropertiesRoute = page(() => import('./routes/my-listings'), 'MyPropertiesRoute')
const MyProductsRoute = page(() => import('./routes/my-listings'), 'MyProductsRoute')
const MyLandsRoute = page(() => import('./routes/my-listings'), 'MyLandsRoute')
const MyServicesRoute = page(() => import('./routes/my-listings'), 'MyServicesRoute')
const P2pRoute = page(() => import('./routes/p2p'), 'P2pRoute')
const P2pTradesRoute = page(() => import('./routes/p2p'), 'P2pTradesRoute')
const P2pTradeRoute = page(() => import('./routes/p2p'), 'P2pTradeRoute')
const MyP2pOffersRoute = page(() => import('./routes/my-p2p-offers'), 'MyP2pOffersRoute')
const WalletRoute = page(() => import('./routes/wallet'), 'WalletRoute')
const MessagesRoute = page(() => import('./routes/messages'), 'MessagesRoute')
const SearchRoute = page(() => import('./routes/search'), 'SearchRoute')
const SavedRoute = page(() => import('./routes/saved'), 'SavedRoute')
const ContactRoute = page(() => import('./routes/contact'), 'ContactRoute')
// The admin area (issue 15): its own shell, routes and chunk, outside the public AppLayout.
const AdminRoute = page(() => import('./routes/admin'), 'AdminRoute')

// The signed-in shell's inbox: one chunk, loaded only once a session is known (see SignedInSlot).
const InboxShell = lazy(() => import('./inbox-shell').then((module) => ({ default: module.InboxShell })))
const shellInbox: ShellInbox = { navbar: <InboxShell place="navbar" />, messagesBadge: <InboxShell place="bar" /> }

/**
 * The route table. The outer errorElement catches a failing shell; the inner
 * one keeps the shell on screen when only a page fails.
 */
export const routes: RouteObject[] = [
  { path: '/admin/*', element: <AdminRoute />, errorElement: <RouteError /> },
  {
    path: '/',
    element: <AppLayout inbox={shellInbox} />,
    errorElement: <RouteError />,
    children: [
      {
        errorElement: <RouteError />,
        children: [
          { index: true, element: <RedirectRoute /> },
          { path: 'home', element: <HomeRoute /> },
          { path: 'terms', element: <TermsRoute /> },
          { path: 'privacy', element: <PrivacyRoute /> },
          {
            element: <DataLayout />,
            children: [
              { path: 'pricing', element: <PricingRoute /> },
              { path: 'login', element: <LoginRoute /> },
              { path: 'register', element: <RegisterRoute /> },
              { path: 'forgot-password', element: <ForgotPasswordRoute /> },
              { path: 'reset-password', element: <ResetPasswordRoute /> },
              { path: 'properties', element: <PropertiesRoute /> },
              { path: 'marketplace', element: <MarketplaceRoute /> },
              { path: 'lands', element: <LandsRoute /> },
              { path: 'services', element: <ServicesRoute /> },
              { path: 'properties/:id', element: <PropertyDetailsRoute /> },
              { path: 'marketplace/:id', element: <ProductDetailsRoute /> },
              { path: 'lands/:id', element: <LandDetailsRoute /> },
              { path: 'service-provider/:id', element: <ServiceDetailsRoute /> },
              { path: 'list-property', element: <ListPropertyRoute /> },
              { path: 'list-product', element: <ListProductRoute /> },
              { path: 'list-land', element: <ListLandRoute /> },
              { path: 'list-service', element: <ListServiceRoute /> },
              { path: 'edit-service/:id', element: <EditServiceRoute /> },
              { path: 'profile', element: <ProfileRoute /> },
              { path: 'kyc-verification', element: <KycVerificationRoute /> },
              { path: 'my-properties', element: <MyPropertiesRoute /> },
              { path: 'my-products', element: <MyProductsRoute /> },
              { path: 'my-lands', element: <MyLandsRoute /> },
              { path: 'my-services', element: <MyServicesRoute /> },
              { path: 'p2p', element: <P2pRoute /> },
              { path: 'p2p/trades', element: <P2pTradesRoute /> },
              { path: 'p2p/trades/:id', element: <P2pTradeRoute /> },
              { path: 'my-p2p-offers', element: <MyP2pOffersRoute /> },
              { path: 'wallet', element: <WalletRoute /> },
              { path: 'messages', element: <MessagesRoute /> },
              { path: 'messages/:id', element: <MessagesRoute /> },
              // /about sits here too: its contact form sends through TanStack Query.
              { path: 'about', element: <AboutRoute /> },
              { path: 'contact', element: <ContactRoute /> },
              { path: 'search', element: <SearchRoute /> },
              { path: 'saved', element: <SavedRoute /> },
            ],
          },
          { path: '*', element: <ComingSoonRoute /> },
        ],
      },
    ],
  },
]

let browserRouter: ReturnType<typeof createBrowserRouter> | undefined

/** The app's router, created once on first render. */
export function AppRouter() {
  browserRouter ??= createBrowserRouter(routes)
  return <RouterProvider router={browserRouter} />
}
