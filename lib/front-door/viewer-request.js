// CloudFront Function (runtime cloudfront-js-2.0), viewer request, on every behavior of the edge
// distribution. The origin request policy never forwards the viewer's Host (the origin is a Lambda
// function URL, which answers only to its own host), so the host the viewer asked for, which names
// the link's domain, travels in x-forwarded-host. Whatever a client sent as x-forwarded-host is
// overwritten. The edge trusts it only with the origin-verify secret CloudFront adds.
// Runtime limits (cloudfront-js-2.0): no require/import, no network or file access, 10 KB code.
function handler(event) {
  var request = event.request;
  var host = request.headers.host;
  if (host && host.value) {
    request.headers['x-forwarded-host'] = { value: host.value.toLowerCase() };
  } else {
    delete request.headers['x-forwarded-host'];
  }
  return request;
}
