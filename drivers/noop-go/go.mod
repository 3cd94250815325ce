module litebench.local/drivers/noop-go

go 1.26.0
