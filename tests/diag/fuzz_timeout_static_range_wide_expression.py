import triton
import triton.language as tl
@triton.jit
def k(n):
    x = 0
    for i in tl.static_range(64):
        for j in tl.static_range(64):
            for l in tl.static_range(60):
                x = ((((((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n)))))+(((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))))+((((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n)))))+(((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n)))))))+(((((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n)))))+(((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))))+((((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n)))))+(((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))+((((n+n)+(n+n))+((n+n)+(n+n)))+(((n+n)+(n+n))+((n+n)+(n+n))))))))
