package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// allowHeader lists the methods kubequiz serves. It sends no CORS headers,
// so OPTIONS is not among them.
const allowHeader = "GET, HEAD, POST"

// allowedMethods answers every request with another method than GET, HEAD
// or POST (TRACE, OPTIONS, PUT, DELETE, made-up ones) with 405 and the
// Allow header, on any path, before routing: such a request reaches no
// handler and changes nothing.
func allowedMethods(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodPost:
			return next(c)
		}
		c.Response().Header().Set(echo.HeaderAllow, allowHeader)
		return echo.ErrMethodNotAllowed
	}
}

// dropRequestID removes the X-Request-Id a client sent, so that the request
// id in the logs and the response is always one the server made: a client
// cannot forge log lines or tie its requests to another's id.
func dropRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Request().Header.Del(echo.HeaderXRequestID)
		return next(c)
	}
}
