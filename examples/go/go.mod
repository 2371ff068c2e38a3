module eightsladder.example/starter

go 1.19
